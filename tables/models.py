import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext


def new_invite_token() -> str:
    """128 random bits, URL-safe: unguessable, so the link itself is the invitation."""
    return secrets.token_urlsafe(16)


class Game(models.TextChoices):
    AMERICANA = "americana", _("Șeptică Americană")
    CLASSIC = "classic", _("Classic Șeptică")


class TurnClock(models.IntegerChoices):
    SECONDS_20 = 20, _("20 seconds")
    SECONDS_45 = 45, _("45 seconds")
    SECONDS_90 = 90, _("90 seconds")
    NONE = 0, _("No clock (private tables only)")


class Pace(models.IntegerChoices):
    """A table played live (everyone there at once) or at its players' own pace: hours per move."""

    LIVE = 0, _("Live: everyone plays at once")
    HOURS_12 = 12, _("12 hours a move")
    DAY_1 = 24, _("1 day a move")
    DAYS_2 = 48, _("2 days a move")
    DAYS_3 = 72, _("3 days a move")
    DAYS_7 = 168, _("7 days a move")


class Casual(models.TextChoices):
    """Why a table's match moves no rating (``tables.rated`` decides; blank when it is rated)."""

    ASKED = "asked", _("casual play was chosen for this table")
    PRIVATE = "private", _("private tables are casual")
    NO_CLOCK = "no_clock", _("a table without a turn clock is casual")
    BOTS = "bots", _("bots play at this table")
    BOT_ACCOUNTS = "bot_accounts", _("people and bot accounts play casual matches together")
    NEWCOMER = "newcomer", _("a player's account is new or its email is not confirmed yet")
    PAIR_DAILY = "pair_daily", _("some of these players have played enough rated matches together today")


def casual_words(reason: str) -> str:
    """Why a match is casual, as a player reads it (``reason``: a ``Casual`` value)."""
    if reason == Casual.PAIR_DAILY:
        return ngettext(
            "two of its players have already played %(count)d rated match together in the last 24 hours",
            "two of its players have already played %(count)d rated matches together in the last 24 hours",
            settings.RATED_PAIR_DAILY,
        ) % {"count": settings.RATED_PAIR_DAILY}
    return str(Casual(reason).label) if reason in Casual.values else ""


class BotLevel(models.TextChoices):
    EASY = "easy", _("easy")
    NORMAL = "normal", _("normal")
    HARD = "hard", _("hard")


class Table(models.Model):
    """A table: the game and its options, who hosts it, and where it is in its life."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("waiting for players")
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        CLOSED = "closed", _("closed")

    NOT_OVER = (Status.WAITING, Status.PLAYING)
    """The statuses of a table whose match is still to come or being played."""

    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    options = models.JSONField(
        _("options"), help_text=_("The game's options, as the rules engine reads them.")
    )
    turn_clock = models.PositiveSmallIntegerField(_("turn clock"), choices=TurnClock.choices, default=45)
    pace_hours = models.PositiveSmallIntegerField(
        _("own pace"),
        choices=Pace.choices,
        default=Pace.LIVE,
        db_default=Pace.LIVE,
        help_text=_("0: played live, on the turn clock; otherwise at the players' own pace, hours per move."),
    )
    is_private = models.BooleanField(_("private"), default=False)
    fast_bots = models.BooleanField(
        _("fast bots"),
        default=False,
        help_text=_("Bots move in a few tenths of a second, not a second or so."),
    )
    rated_wanted = models.BooleanField(
        _("rated asked for"),
        default=False,
        help_text=_("Its host (or the pool) asked for a rated match; unticked, it is casual whoever sits."),
    )
    is_rated = models.BooleanField(
        _("rated"),
        default=False,
        help_text=_(
            "Whether its match moves the players' ratings: decided from who sits there while it waits, "
            "and for good when it starts."
        ),
    )
    casual_because = models.CharField(
        _("casual because"), max_length=16, choices=Casual.choices, blank=True, default=""
    )
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token, editable=False)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="hosted_tables",
        verbose_name=_("host"),
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.WAITING)
    rematch_of = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematch",
        verbose_name=_("rematch of"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        indexes = [models.Index(fields=["status", "is_private", "-created_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(turn_clock__gt=0) | Q(is_private=True),
                name="tables_table_clock_only_private_none",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_game_display()}"

    @property
    def players(self) -> int:
        return int(self.options["players"])

    @property
    def is_own_pace(self) -> bool:
        return self.pace_hours > 0

    @property
    def pace_seconds(self) -> float:
        """The time for a move at own pace, in seconds (an hour is ``OWN_PACE_HOUR_SECONDS`` long)."""
        return self.pace_hours * settings.OWN_PACE_HOUR_SECONDS

    @property
    def casual_why(self) -> str:
        """Why this table's match moves no rating, as a player reads it; "" when it is rated."""
        return casual_words(self.casual_because)

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.WAITING


class Seat(models.Model):
    """One place at a table: empty, a person, or a bot (with a level).

    A person's seat may be reserved for them (a rematch) before they sit, and a bot
    may be standing in for a person who has gone quiet during a match.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("table"))
    position = models.PositiveSmallIntegerField(_("position"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
        verbose_name=_("player"),
    )
    reserved_for = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("reserved for"),
    )
    bot_level = models.CharField(_("bot level"), max_length=8, choices=BotLevel.choices, blank=True)
    is_taken_over = models.BooleanField(_("bot standing in"), default=False)
    taken_over_at = models.DateTimeField(_("bot standing in since"), null=True, blank=True)
    last_seen = models.DateTimeField(_("last seen"), null=True, blank=True)

    class Meta:
        ordering = ["table", "position"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        indexes = [
            # The sweep's look for matches every person has long left: the few seats a bot stands in
            # for, not every seat of every match (own-pace matches keep thousands open for days).
            models.Index(
                fields=["taken_over_at"], condition=Q(is_taken_over=True), name="tables_seat_stood_in"
            )
        ]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="tables_seat_unique_position"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(user__isnull=False),
                name="tables_seat_user_once_per_table",
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(bot_level=""), name="tables_seat_person_or_bot"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.position}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def is_free(self) -> bool:
        return self.user_id is None and not self.bot_level
