from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.models import named_by_id


class DataExport(models.Model):
    """A download of everything the site keeps about one person, prepared by a worker and kept for
    ``DATA_EXPORT_KEEP_HOURS``. The archive lives in the database, so every server process can hand
    it out and a backup holds nothing the retention job would have deleted for long."""

    class Status(models.TextChoices):
        PENDING = "pending", _("being prepared")
        READY = "ready", _("ready")
        FAILED = "failed", _("failed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="data_exports",
        verbose_name=_("person"),
    )
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.PENDING)
    language = models.CharField(_("language"), max_length=8, help_text=_("The README's language."))
    requested_at = models.DateTimeField(_("asked for"), auto_now_add=True)
    ready_at = models.DateTimeField(_("ready"), null=True, blank=True)
    expires_at = models.DateTimeField(_("deleted after"), null=True, blank=True)
    archive = models.BinaryField(_("archive"), default=b"", editable=False)
    size = models.PositiveIntegerField(_("size in bytes"), default=0)

    class Meta:
        ordering = ["-requested_at", "-pk"]
        verbose_name = _("data download")
        verbose_name_plural = _("data downloads")
        indexes = [models.Index(fields=["user", "-requested_at"])]

    def __str__(self) -> str:
        return named_by_id(self)


class ErasedAccount(models.Model):
    """The ledger of accounts closed for good: the id and when, nothing else. ``manage.py restore``
    erases each again in what a backup brings back, so a restored backup never revives a closed account
    (an id given later to someone new, who joined after the erasure, is left alone)."""

    user_id = models.BigIntegerField(_("account"), primary_key=True)
    erased_at = models.DateTimeField(_("erased"))

    class Meta:
        ordering = ["erased_at"]
        verbose_name = _("erased account")
        verbose_name_plural = _("erased accounts")

    def __str__(self) -> str:
        return f"#{self.user_id}"
