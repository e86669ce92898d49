from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


def named_by_id(record: models.Model) -> str:
    """A record's name by its kind and id only ("chat report #12"). Django's admin log keeps a changed
    row's name for ever, so a moderation record's name carries no username and no chat text."""
    return f"{record._meta.verbose_name} #{record.pk}"


class User(AbstractUser):
    """A player. Deactivating the account (``is_active`` off) is how moderators ban. A closed account
    keeps its row, emptied (``erased_at`` set), so the matches it played stay whole for the others."""

    email = models.EmailField(_("email address"), blank=True)
    erased_at = models.DateTimeField(
        _("erased"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("When the account was closed and its personal data erased."),
    )
    email_confirmed_at = models.DateTimeField(
        _("email confirmed"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("When the person opened the link mailed to them at registration; unset until then."),
    )
    is_bot_account = models.BooleanField(
        _("bot account"),
        default=False,
        db_index=True,
        editable=False,
        help_text=_("A program a person runs, playing through the API only; it cannot log in to the pages."),
    )
    bot_owner = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="bot_accounts",
        editable=False,
        verbose_name=_("run by"),
        help_text=_("The person who registered this bot account and answers for it."),
    )
    bot_description = models.CharField(
        _("description"),
        max_length=200,
        blank=True,
        help_text=_("What the bot account's owner says about it, shown on its profile."),
    )

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
            models.UniqueConstraint(
                Lower("email"), condition=~models.Q(email=""), name="accounts_user_email_ci_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(is_bot_account=False, bot_owner__isnull=True)
                | models.Q(is_bot_account=True, bot_owner__isnull=False),
                name="accounts_user_bot_has_owner",
            ),
        ]

    def __str__(self) -> str:
        return self.username

    @property
    def public_name(self) -> str:
        """The name other people see: the username, or "a deleted player" once the account is closed."""
        return gettext("a deleted player") if self.erased_at else self.username


def open_bot_accounts(owner: User) -> models.QuerySet[User]:
    """``owner``'s bot accounts not closed, oldest first: a banned one is still open (and counts
    against their cap), a closed one is erased."""
    return User.objects.filter(bot_owner=owner, is_bot_account=True, erased_at__isnull=True).order_by("pk")


class ReservedName(models.Model):
    """A closed account's username, kept from registration for a while so nobody takes it to pass for
    the person. Only a keyed digest of the name is kept, not the name."""

    digest = models.CharField(_("digest"), max_length=64, unique=True)
    until = models.DateTimeField(_("reserved until"))

    class Meta:
        verbose_name = _("reserved username")
        verbose_name_plural = _("reserved usernames")

    def __str__(self) -> str:
        return self.digest[:12]
