from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.models import named_by_id


class Kind(models.TextChoices):
    """What a notice is about: each is switched on or off per way on the settings page."""

    YOUR_TURN = "your_turn", _("Your turn")
    INVITATION = "invitation", _("An invitation")
    FRIEND_REQUEST = "friend_request", _("A friend request")
    TOURNAMENT = "tournament", _("A tournament starting")
    PACE_RESULT = "pace_result", _("A match at your own pace: a missed move, the result")
    WARNING = "warning", _("A moderator's warning")


class Way(models.TextChoices):
    """How a notice reaches a person: on the page they have open, by web push, or by email."""

    SITE = "site", _("On the site")
    PUSH = "push", _("Push")
    EMAIL = "email", _("Email")


CHOSEN_WAYS = (Way.PUSH, Way.EMAIL)
"""The ways a person switches on and off; the site's notice (the bell, the turns in the top bar) is
always shown, since nothing leaves the site for it."""

DEFAULT_WAYS: dict[str, list[str]] = {
    Kind.YOUR_TURN: [Way.PUSH, Way.EMAIL],
    Kind.INVITATION: [Way.PUSH],
    Kind.FRIEND_REQUEST: [Way.PUSH],
    Kind.TOURNAMENT: [Way.PUSH],
    Kind.PACE_RESULT: [Way.PUSH, Way.EMAIL],
    Kind.WARNING: [Way.PUSH, Way.EMAIL],
}
"""What a person is sent before they change anything: a push for everything (once they subscribe a
browser), email for what waits on them for hours (their turn, a match's news at their own pace) and a
moderator's warning (once their address is confirmed)."""

DEFAULT_TIME_ZONE = "Europe/Bucharest"


class Preference(models.Model):
    """A person's notification settings; no row means the defaults (``DEFAULT_WAYS``, no quiet hours)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notification_preference",
        verbose_name=_("person"),
    )
    ways = models.JSONField(
        _("ways"), default=dict, blank=True, help_text=_("For each kind, the ways it is sent.")
    )
    quiet_from = models.TimeField(_("quiet from"), null=True, blank=True)
    quiet_until = models.TimeField(_("quiet until"), null=True, blank=True)
    time_zone = models.CharField(_("time zone"), max_length=64, default=DEFAULT_TIME_ZONE)
    language = models.CharField(
        _("language"), max_length=8, blank=True, help_text=_("The site's language at their last login.")
    )

    class Meta:
        verbose_name = _("notification settings")
        verbose_name_plural = _("notification settings")

    def __str__(self) -> str:
        return named_by_id(self)

    def ways_for(self, kind: str) -> list[str]:
        """The ways ``kind`` goes out by, beside the site's notice (the defaults for a kind never saved)."""
        chosen = self.ways.get(kind) if isinstance(self.ways, dict) else None
        return list(chosen) if isinstance(chosen, list) else list(DEFAULT_WAYS[kind])

    def sends(self, kind: str, way: str) -> bool:
        return way == Way.SITE or way in self.ways_for(kind)

    def quiet_end(self, now: datetime) -> datetime | None:
        """When the quiet hours that ``now`` falls in end (in the person's time zone, over midnight
        too: 22:00 to 08:00), or None outside them (or none set)."""
        start, end = self.quiet_from, self.quiet_until
        if start is None or end is None or start == end:
            return None
        zone = ZoneInfo(self.time_zone)
        local = now.astimezone(zone)
        clock = local.time().replace(tzinfo=None)
        quiet = start <= clock < end if start < end else clock >= start or clock < end
        if not quiet:
            return None
        day = local.date() if clock < end else local.date() + timedelta(days=1)
        return datetime.combine(day, end, tzinfo=zone)


def preference_of(user_id: int) -> Preference:
    """A person's settings: their row, or the defaults unsaved."""
    return Preference.objects.filter(user_id=user_id).first() or Preference(user_id=user_id)


class PushSubscription(models.Model):
    """One browser's web push subscription (its push service's endpoint and the keys the messages are
    encrypted with); the push service refusing it as gone deletes it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="push_subscriptions",
        verbose_name=_("person"),
    )
    endpoint = models.URLField(_("endpoint"), max_length=1000, unique=True)
    p256dh = models.CharField(_("public key"), max_length=200)
    auth = models.CharField(_("auth secret"), max_length=100)
    created_at = models.DateTimeField(_("subscribed"), auto_now_add=True)
    last_sent_at = models.DateTimeField(_("last sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("push subscription")
        verbose_name_plural = _("push subscriptions")

    def __str__(self) -> str:
        return named_by_id(self)


class Delivery(models.Model):
    """The outbox: one push or email to one person about one thing (``key``), written when it is
    decided and marked sent once it went out, so a task run twice, a worker killed mid-send or a mail
    server down sends it once, later, never twice and never lost."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notification_deliveries",
        verbose_name=_("person"),
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    way = models.CharField(_("way"), max_length=8, choices=Way.choices)
    key = models.CharField(
        _("about"), max_length=100, help_text=_("What it is about, e.g. turn:<match>:<version>.")
    )
    params = models.JSONField(_("details"), default=dict, blank=True)
    link = models.CharField(_("link"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("decided"), auto_now_add=True)
    due_at = models.DateTimeField(_("not before"))
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    last_error = models.CharField(_("last error"), max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
        constraints = [
            models.UniqueConstraint(fields=["user", "way", "key"], name="notifications_delivery_once"),
        ]
        indexes = [
            models.Index(
                fields=["due_at"], condition=models.Q(sent_at__isnull=True), name="notifications_delivery_due"
            ),
        ]

    def __str__(self) -> str:
        return named_by_id(self)
