"""A tournament's rows: the event, its players, the tables it made and what each table scored, the
calendar that makes events ahead of their start, the trophies, and what moderators did.

Every row here is written by ``tournaments.services`` only."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import named_by_id
from tables.models import Game, TurnClock


def new_join_token() -> str:
    return secrets.token_urlsafe(16)


class Kind(models.TextChoices):
    ARENA = "arena", _("Arena")
    SWISS = "swiss", _("Swiss")


class TournamentShape(models.Model):
    """What a tournament and the calendar line that makes it share: the game, the table, the match,
    the clock, how long it lasts and who may enter."""

    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices, default=Kind.ARENA)
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    options = models.JSONField(_("match options"), help_text=_("The game's options, players included."))
    turn_clock = models.PositiveSmallIntegerField(
        _("turn clock"),
        choices=[(value, label) for value, label in TurnClock.choices if value],
        default=TurnClock.SECONDS_20,
    )
    minutes = models.PositiveSmallIntegerField(
        _("length in minutes"), default=30, help_text=_("An arena's length; a Swiss round's time limit.")
    )
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=0, help_text=_("Swiss only."))
    min_rated_matches = models.PositiveSmallIntegerField(_("rated matches needed to enter"), default=0)
    rating_min = models.PositiveSmallIntegerField(_("lowest rating to enter"), null=True, blank=True)
    rating_max = models.PositiveSmallIntegerField(_("highest rating to enter"), null=True, blank=True)
    max_players = models.PositiveIntegerField(_("most players"), default=1000)

    class Meta:
        abstract = True

    @property
    def players_at_table(self) -> int:
        return int(self.options["players"])

    @property
    def teams(self) -> bool:
        """Classic at four seats plays two against two."""
        return self.game == Game.CLASSIC and self.players_at_table == 4


class Schedule(TournamentShape):
    """A line of the calendar: a tournament every ``every_minutes`` from ``first_start``, each made
    ``ahead_minutes`` before it starts (by Celery beat)."""

    name = models.CharField(_("name"), max_length=80)
    first_start = models.DateTimeField(_("first start"))
    every_minutes = models.PositiveIntegerField(
        _("every (minutes)"), help_text=_("60: hourly; 1440: daily; 10080: weekly.")
    )
    ahead_minutes = models.PositiveIntegerField(_("made ahead (minutes)"), default=60)
    active = models.BooleanField(_("active"), default=True)

    class Meta:
        verbose_name = _("calendar line")
        verbose_name_plural = _("calendar")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Tournament(TournamentShape):
    class Status(models.TextChoices):
        UPCOMING = "upcoming", _("upcoming")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    name = models.CharField(_("name"), max_length=80)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.UPCOMING)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(
        _("ends"), null=True, blank=True, help_text=_("An arena's end; a Swiss event's is its last round's.")
    )
    schedule = models.ForeignKey(
        Schedule,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("calendar"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    is_private = models.BooleanField(_("private"), default=False)
    join_token = models.CharField(max_length=32, unique=True, default=new_join_token, editable=False)
    round = models.PositiveSmallIntegerField(_("round"), default=0)
    round_started_at = models.DateTimeField(_("round started"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    cancelled_because = models.CharField(_("why cancelled"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-starts_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule", "starts_at"], condition=Q(schedule__isnull=False), name="tournaments_once"
            )
        ]
        indexes = [models.Index(fields=["status", "starts_at"])]

    def __str__(self) -> str:
        return self.name

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)

    @property
    def round_ends_at(self):
        """A Swiss round's time limit: the next round starts by then at the latest."""
        if self.round_started_at is None:
            return None
        return self.round_started_at + timedelta(minutes=self.minutes)


class Entry(models.Model):
    """A person in a tournament: their points, their streak, and whether they are waiting for a table."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", verbose_name=_("tournament")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("player")
    )
    rating = models.IntegerField(_("rating when joining"))
    joined_at = models.DateTimeField(_("joined"))
    points = models.IntegerField(_("points"), default=0)
    matches = models.PositiveIntegerField(_("matches"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    streak = models.PositiveSmallIntegerField(_("wins in a row"), default=0)
    byes = models.PositiveSmallIntegerField(_("byes"), default=0)
    paused = models.BooleanField(_("paused"), default=False)
    seen_at = models.DateTimeField(_("tournament page last heard of"))
    free_since = models.DateTimeField(
        _("free since"), null=True, blank=True, help_text=_("When their last tournament match ended.")
    )
    table = models.ForeignKey(
        "tables.Table",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("current table"),
    )
    last_table_mates = models.JSONField(_("last table's players"), default=list, blank=True)
    disqualified_at = models.DateTimeField(_("disqualified"), null=True, blank=True)
    rank = models.PositiveIntegerField(_("place"), null=True, blank=True)

    class Meta:
        verbose_name = _("player in a tournament")
        verbose_name_plural = _("players in tournaments")
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="tournaments_entry_once")]
        indexes = [models.Index(fields=["user", "tournament"])]

    def __str__(self) -> str:
        return named_by_id(self)

    @property
    def on_fire(self) -> bool:
        return self.streak >= 2


class Pairing(models.Model):
    """A table a tournament made, and whether its match scored."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="pairings", verbose_name=_("tournament")
    )
    table = models.OneToOneField(
        "tables.Table", on_delete=models.CASCADE, related_name="tournament_pairing", verbose_name=_("table")
    )
    round = models.PositiveSmallIntegerField(_("round"), default=0)
    seats = models.JSONField(_("players by seat"), help_text=_("Who sat where when the table was made."))
    made_at = models.DateTimeField(_("made"))
    scored_at = models.DateTimeField(_("scored"), null=True, blank=True)
    counted = models.BooleanField(
        _("counted"), default=False, help_text=_("Scored before the tournament's end.")
    )

    class Meta:
        verbose_name = _("tournament table")
        verbose_name_plural = _("tournament tables")
        indexes = [models.Index(fields=["tournament", "scored_at"])]

    def __str__(self) -> str:
        return named_by_id(self)


class Score(models.Model):
    """What one person's place at one tournament table (or a bye) was worth."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    pairing = models.ForeignKey(
        Pairing, null=True, blank=True, on_delete=models.CASCADE, related_name="scores"
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="scores", verbose_name=_("player")
    )
    round = models.PositiveSmallIntegerField(_("round"), default=0)
    side = models.PositiveSmallIntegerField(_("side"), default=0)
    place = models.PositiveSmallIntegerField(_("place"), default=1)
    points = models.IntegerField(_("points"))
    won = models.BooleanField(_("won"), default=False)
    doubled = models.BooleanField(_("on fire"), default=False)
    counted = models.BooleanField(_("counted"), default=True)
    at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("tournament score")
        verbose_name_plural = _("tournament scores")
        constraints = [
            models.UniqueConstraint(
                fields=["pairing", "entry"], condition=Q(pairing__isnull=False), name="tournaments_score_once"
            ),
            models.UniqueConstraint(
                fields=["entry", "round"], condition=Q(pairing__isnull=True), name="tournaments_bye_once"
            ),
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class Trophy(models.Model):
    """A podium place, kept on the person's profile."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="trophies", verbose_name=_("player")
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="trophies", verbose_name=_("tournament")
    )
    place = models.PositiveSmallIntegerField(_("place"))
    points = models.IntegerField(_("points"))
    won_at = models.DateTimeField(_("won"))

    class Meta:
        verbose_name = _("trophy")
        verbose_name_plural = _("trophies")
        ordering = ["-won_at"]
        constraints = [models.UniqueConstraint(fields=["user", "tournament"], name="tournaments_trophy_once")]

    def __str__(self) -> str:
        return named_by_id(self)


class ModeratorAction(models.Model):
    """What a moderator did to a tournament, who, when and why."""

    class Kind(models.TextChoices):
        DISQUALIFY = "disqualify", _("disqualified a player")
        CANCEL = "cancel", _("cancelled the tournament")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="moderator_actions", verbose_name=_("tournament")
    )
    kind = models.CharField(_("what"), max_length=12, choices=Kind.choices)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("player"),
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("by")
    )
    reason = models.CharField(_("why"), max_length=300)
    at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("moderator's action on a tournament")
        verbose_name_plural = _("moderators' actions on tournaments")
        ordering = ["-at"]

    def __str__(self) -> str:
        return named_by_id(self)
