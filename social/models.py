from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from accounts.models import named_by_id
from tables.models import Game


class PoolEntry(models.Model):
    """A person looking for a match of one game and its options ("Play now with people"): one pool at a
    time (one row per person). Pairing claims rows with ``SELECT … FOR UPDATE SKIP LOCKED`` and notes
    the table it made on them; the page that looks then opens it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="pool_entry",
        verbose_name=_("player"),
    )
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    options = models.JSONField(_("options"))
    pool = models.CharField(_("pool"), max_length=64, help_text=_("The game and its options, as one key."))
    rating = models.IntegerField(_("rating"))
    fill_with_bots = models.BooleanField(_("fill with bots"), default=False)
    joined_at = models.DateTimeField(_("joined"))
    seen_at = models.DateTimeField(_("page last heard of"))
    table = models.ForeignKey(
        "tables.Table",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("table"),
    )
    paired_at = models.DateTimeField(_("paired"), null=True, blank=True)

    class Meta:
        verbose_name = _("pool entry")
        verbose_name_plural = _("pool entries")
        indexes = [
            models.Index(
                fields=["pool", "joined_at"], condition=Q(table__isnull=True), name="social_pool_waiting"
            )
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class Friendship(models.Model):
    """One direction of a friendship: each friendship is two rows, so a person's friends are one lookup."""

    person = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="friendships",
        verbose_name=_("person"),
    )
    friend = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("friend")
    )
    since = models.DateTimeField(_("friends since"), auto_now_add=True)

    class Meta:
        verbose_name = _("friendship")
        verbose_name_plural = _("friendships")
        constraints = [
            models.UniqueConstraint(fields=["person", "friend"], name="social_friendship_once"),
            models.CheckConstraint(condition=~Q(person=F("friend")), name="social_friendship_not_self"),
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class FriendRequest(models.Model):
    """A friend request waiting for its answer."""

    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="friend_requests_sent",
        verbose_name=_("from"),
    )
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="friend_requests",
        verbose_name=_("to"),
    )
    created_at = models.DateTimeField(_("sent"), auto_now_add=True)

    class Meta:
        verbose_name = _("friend request")
        verbose_name_plural = _("friend requests")
        constraints = [
            models.UniqueConstraint(fields=["sender", "recipient"], name="social_request_once"),
            models.CheckConstraint(condition=~Q(sender=F("recipient")), name="social_request_not_self"),
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class Block(models.Model):
    """``blocker`` wants nothing from ``blocked``: no requests, invitations, pairing or chat."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="blocks",
        verbose_name=_("who blocks"),
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("blocked")
    )
    created_at = models.DateTimeField(_("blocked on"), auto_now_add=True)

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="social_block_once"),
            models.CheckConstraint(condition=~Q(blocker=F("blocked")), name="social_block_not_self"),
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class Notice(models.Model):
    """Something for a person to see on whatever page they have open, kept under the bell until read."""

    class Kind(models.TextChoices):
        FRIEND_REQUEST = "friend_request", _("friend request")
        FRIEND_ACCEPTED = "friend_accepted", _("friend request accepted")
        INVITATION = "invitation", _("invitation to a table")
        TOURNAMENT_STARTING = "tournament", _("a tournament is starting")
        TOURNAMENT_CANCELLED = "tournament_off", _("a tournament was cancelled")

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices", verbose_name=_("for")
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("from"),
        help_text=_("None: the site's own notice (a tournament starting)."),
    )
    table = models.ForeignKey(
        "tables.Table",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("table"),
    )
    subject = models.CharField(_("about"), max_length=80, blank=True, help_text=_("A tournament's name."))
    link = models.CharField(_("link"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("sent"), auto_now_add=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    closed = models.BooleanField(
        _("closed"), default=False, help_text=_("Answered, withdrawn or lapsed: nothing left to do.")
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("notice")
        verbose_name_plural = _("notices")
        indexes = [models.Index(fields=["recipient", "-created_at"])]

    def __str__(self) -> str:
        return named_by_id(self)
