from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Review(models.Model):
    """One seat's decisions in a finished match, judged (``bots.review.Judged`` as JSON, in move order).

    A seat is reviewed once, for the person who held it; its owner and moderators read the same row.
    ``done`` and ``total`` are the progress a page shows while a worker judges it."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("waiting for a worker")
        RUNNING = "running", _("being reviewed")
        DONE = "done", _("done")
        FAILED = "failed", _("could not be reviewed")

    match = models.ForeignKey(
        "gameplay.Match", on_delete=models.CASCADE, related_name="reviews", verbose_name=_("match")
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reviews",
        verbose_name=_("player"),
        help_text=_("Whose decisions at the seat are reviewed (a stand-in's are not)."),
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("requested by"),
    )
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.QUEUED)
    seed = models.BigIntegerField(_("seed"), help_text=_("The review's sampling seed."))
    method = models.PositiveSmallIntegerField(_("method"), help_text=_("The judging's version."))
    done = models.PositiveIntegerField(_("decisions judged"), default=0)
    total = models.PositiveIntegerField(_("decisions to judge"), default=0)
    decisions = models.JSONField(_("decisions"), default=list, blank=True)
    accuracy = models.FloatField(_("accuracy"), null=True, blank=True)
    best_share = models.FloatField(
        _("best action chosen"),
        null=True,
        blank=True,
        help_text=_("The share of decisions where the best action was chosen."),
    )
    failure = models.CharField(_("why it failed"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("requested"), auto_now_add=True)
    heartbeat_at = models.DateTimeField(_("last progress"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("review")
        verbose_name_plural = _("reviews")
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="reviews_review_one_per_seat")]
        indexes = [models.Index(fields=["user", "match"])]
        permissions = [("review_seat", _("Can have any player's seat reviewed (fair play)"))]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)
