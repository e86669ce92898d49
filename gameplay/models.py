from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tables.models import BotLevel

from .games.screen import bot_name


class MatchQuerySet(models.QuerySet):
    def waiting_at_own_pace_for(self, user_id: int) -> "MatchQuerySet":
        """The matches at their own pace whose move waits for this person now (their seat is to act)."""
        return self.filter(
            status=Match.Status.PLAYING,
            due=Match.Due.PACE,
            table__seats__user_id=user_id,
            table__seats__position=models.F("to_act"),
        )


class Match(models.Model):
    """One match at a table. Its state snapshot and move log are everything needed to go on
    after a server restart; ``version`` bumps with every change so stale work can be refused."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    class Due(models.TextChoices):
        """What the match waits for; a periodic sweep acts on it once ``due_at`` has passed."""

        DEAL = "deal", _("the next deal")
        BOT = "bot", _("a bot's move")
        CLOCK = "clock", _("a player's move, on the clock")
        PLAYER = "player", _("a player's move, no clock")
        PACE = "pace", _("a player's move, at their own pace")

    table = models.ForeignKey(
        "tables.Table", on_delete=models.CASCADE, related_name="matches", verbose_name=_("table")
    )
    game = models.CharField(_("game"), max_length=16)
    options = models.JSONField(_("options"))
    seed = models.BigIntegerField(_("seed"))
    state = models.JSONField(_("state"))
    version = models.PositiveIntegerField(_("version"), default=0)
    moves_made = models.PositiveIntegerField(
        _("moves made"),
        default=0,
        db_default=0,
        help_text=_("How many moves the log holds: the next move's number, with no count of the log."),
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PLAYING)
    result = models.JSONField(_("result"), null=True, blank=True)
    abort_reason = models.CharField(_("abort reason"), max_length=200, blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    turn_started_at = models.DateTimeField(_("turn started"), default=timezone.now)
    deal_events = models.JSONField(
        _("deal events"), default=list, help_text=_("The public events of the current round's deal.")
    )
    dealt_after_move = models.PositiveIntegerField(
        _("dealt after move"),
        default=0,
        db_default=0,
        help_text=_("How many moves had been made when the current round was dealt (its moves come after)."),
    )
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    to_act = models.PositiveSmallIntegerField(
        _("seat to act"),
        null=True,
        blank=True,
        help_text=_("Empty between rounds and once the match is over."),
    )
    due = models.CharField(_("what is due"), max_length=8, choices=Due.choices, blank=True)
    due_at = models.DateTimeField(
        _("due at"),
        null=True,
        blank=True,
        help_text=_("When the next deal, the bot's move or the turn clock's end is due at the latest."),
    )
    clock_check_at = models.DateTimeField(
        _("clock check at"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("When the one turn-clock check queued for this match runs (empty: none is queued)."),
    )
    practice = models.BooleanField(
        _("practice"),
        default=False,
        help_text=_("Played offline against bots and saved afterwards; outside every online statistic."),
    )
    practice_digest = models.CharField(
        _("practice upload digest"),
        max_length=64,
        blank=True,
        editable=False,
        help_text=_("Identifies a saved practice match, so saving it twice keeps one."),
    )

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        constraints = [
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status="playing"),
                name="gameplay_match_one_running_per_table",
            ),
            models.UniqueConstraint(
                fields=["practice_digest"],
                condition=~models.Q(practice_digest=""),
                name="gameplay_match_practice_saved_once",
            ),
        ]
        indexes = [
            models.Index(
                fields=["due_at"], condition=models.Q(status="playing"), name="gameplay_match_due_playing"
            ),
            # The sweep's look at the live turns waiting on a person (are they gone?), which leaves out
            # the many matches at their own pace that wait days for theirs.
            models.Index(
                fields=["due"],
                condition=models.Q(status="playing", due__in=["clock", "player"]),
                name="gameplay_match_live_turns",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} match #{self.pk}"


class Move(models.Model):
    """One action taken in a match, in order, and who took it."""

    class Actor(models.TextChoices):
        PLAYER = "player", _("player")
        BOT = "bot", _("bot")
        TAKEOVER = "takeover", _("bot standing in")

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves", verbose_name=_("match"))
    seq = models.PositiveIntegerField(_("number"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    action = models.JSONField(_("action"))
    events = models.JSONField(_("what happened"), default=list)
    actor = models.CharField(_("acted by"), max_length=10, choices=Actor.choices)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["match", "seq"]
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="gameplay_move_unique_seq")]

    def __str__(self) -> str:
        return f"{self.match} move {self.seq}"


class RoundResult(models.Model):
    """One row of the score sheet: a round (Americana) or a deal (classic)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("match"))
    number = models.PositiveSmallIntegerField(_("round"))
    summary = models.JSONField(_("summary"))
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["match", "number"]
        verbose_name = _("score sheet row")
        verbose_name_plural = _("score sheet rows")
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="gameplay_round_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.match} round {self.number}"


class Participant(models.Model):
    """Who held a seat of a match, from which move to which.

    Written when the match starts and when a moderator replaces a player, so history, profiles and score
    sheets keep every person who played, whatever later happens to the table's seats.
    """

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="participants", verbose_name=_("match")
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="participations",
        verbose_name=_("player"),
    )
    bot_level = models.CharField(_("bot level"), max_length=8, choices=BotLevel.choices, blank=True)
    name = models.CharField(_("name shown"), max_length=150, blank=True, help_text=_("Empty for a bot."))
    from_move = models.PositiveIntegerField(_("from move"), default=0, help_text=_("Moves made before."))
    until_move = models.PositiveIntegerField(
        _("until move"), null=True, blank=True, help_text=_("Moves made when they left; empty: to the end.")
    )
    seen_moves = models.PositiveIntegerField(
        _("seen up to move"),
        default=0,
        db_default=0,
        help_text=_("At own pace: the moves made when the person last had the table open."),
    )

    class Meta:
        ordering = ["match", "seat", "from_move", "pk"]
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(user__isnull=True) | models.Q(bot_level=""),
                name="gameplay_participant_person_or_bot",
            ),
        ]
        indexes = [models.Index(fields=["user", "match"])]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}: {self.display_name}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def display_name(self) -> str:
        """A person's name as it was, or "a deleted player" once they closed their account (the name is
        emptied then); a bot is named by its seat ("Bot 3"). In the reader's language."""
        if self.is_bot:
            return bot_name(self.seat)
        return self.name or gettext("a deleted player")


class SeatChange(models.Model):
    """A change at a seat during a match, after a given number of moves: a bot stood in for a quiet
    player, the player came back, or a moderator replaced the player with a bot."""

    class Kind(models.TextChoices):
        STOOD_IN = "stood_in", _("a bot stood in")
        BACK = "back", _("the player came back")
        REPLACED = "replaced", _("replaced by a bot")

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="seat_changes", verbose_name=_("match")
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    kind = models.CharField(_("change"), max_length=10, choices=Kind.choices)
    after_move = models.PositiveIntegerField(_("after move"))
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["match", "created_at", "pk"]
        verbose_name = _("seat change")
        verbose_name_plural = _("seat changes")

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}: {self.kind}"


class HolidayQuerySet(models.QuerySet):
    def current(self) -> "HolidayQuerySet":
        """The holidays going on now."""
        now = timezone.now()
        return self.filter(starts_at__lte=now, ends_at__gt=now)

    def ends_by_person(self, user_ids: list[int]) -> dict[int, datetime]:
        """The end of the holiday each of these people is on now, by user id (those on none left out)."""
        return dict(self.current().filter(user_id__in=user_ids).values_list("user_id", "ends_at"))


class Holiday(models.Model):
    """A person's holiday: while it lasts their clocks stand still in every match at their own pace
    (the deadline of a move waiting for them moves on by the holiday's length)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="holidays", verbose_name=_("player")
    )
    starts_at = models.DateTimeField(_("from"))
    ends_at = models.DateTimeField(_("until"))

    objects = HolidayQuerySet.as_manager()

    class Meta:
        ordering = ["user", "-starts_at"]
        verbose_name = _("holiday")
        verbose_name_plural = _("holidays")
        indexes = [models.Index(fields=["user", "-ends_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gte=models.F("starts_at")), name="holiday_ends_after"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.starts_at:%Y-%m-%d} – {self.ends_at:%Y-%m-%d}"
