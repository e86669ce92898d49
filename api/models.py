from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.models import named_by_id


class Scope(models.TextChoices):
    """What a token lets a program do. Reading public records needs no token at all."""

    READ = "read", _("read: your account, ratings and matches")
    PLAY = "play", _("play: join and leave the pool, make tables, accept invitations, join tournaments")
    BOT = "bot", _("bot: play a bot account's seats move by move")


class AccessToken(models.Model):
    """A personal access token. Only a digest of it is kept: the token itself is shown once, when made.
    It acts as ``holder`` (the person, or one of their bot accounts) and is managed by ``owner``."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="access_tokens",
        verbose_name=_("owner"),
    )
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="tokens_held",
        verbose_name=_("acts as"),
    )
    name = models.CharField(_("name"), max_length=60)
    scopes = models.JSONField(_("scopes"), default=list)
    prefix = models.CharField(_("starts with"), max_length=16)
    digest = models.CharField(_("digest"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("made"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("access token")
        permissions = [("revoke_accesstoken", _("Can revoke another person's access token"))]
        indexes = [models.Index(fields=["owner", "revoked_at"])]

    def __str__(self) -> str:
        return named_by_id(self)
