from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Match(models.Model):
    """One match at a table. Its state snapshot and move log are everything needed to go on
    after a server restart; ``version`` bumps with every change so stale work can be refused."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    table = models.ForeignKey(
        "tables.Table", on_delete=models.CASCADE, related_name="matches", verbose_name=_("table")
    )
    game = models.CharField(_("game"), max_length=16)
    options = models.JSONField(_("options"))
    seed = models.BigIntegerField(_("seed"))
    state = models.JSONField(_("state"))
    version = models.PositiveIntegerField(_("version"), default=0)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PLAYING)
    result = models.JSONField(_("result"), null=True, blank=True)
    abort_reason = models.CharField(_("abort reason"), max_length=200, blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    turn_started_at = models.DateTimeField(_("turn started"), default=timezone.now)
    deal_events = models.JSONField(
        _("deal events"), default=list, help_text=_("The public events of the current round's deal.")
    )
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        constraints = [
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status="playing"),
                name="gameplay_match_one_running_per_table",
            )
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
