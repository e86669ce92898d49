from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.models import named_by_id
from tables.models import Game

from . import model


class Rating(models.Model):
    """A person's rating in one game: the model's μ and σ, and what is shown of them."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("player")
    )
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    mu = models.FloatField("μ", default=model.MU)
    sigma = models.FloatField("σ", default=model.SIGMA)
    shown = models.IntegerField(
        _("rating"), default=model.SHOWN_AT_START, help_text=_("From μ: 1500 + 40·(μ − 25).")
    )
    peak = models.IntegerField(_("peak"), default=model.SHOWN_AT_START)
    matches = models.PositiveIntegerField(_("rated matches"), default=0)
    established = models.BooleanField(
        _("established"), default=False, help_text=_("Enough rated matches and a small enough σ.")
    )
    last_played_at = models.DateTimeField(_("last rated match"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        ordering = ["game", "-shown"]
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="ratings_rating_one_per_game")]
        indexes = [
            models.Index(
                fields=["game", "-shown", "user"],
                condition=models.Q(established=True),
                name="ratings_board",
            )
        ]

    def __str__(self) -> str:
        return named_by_id(self)

    @property
    def provisional(self) -> bool:
        return not self.established


class RatedMatch(models.Model):
    """A match that moved the ratings, when it did, and whether a moderator voided that since.

    ``rated_at`` is taken once every rating the match moves is locked, so for any two matches sharing
    a person it orders them as the live update did: ``rebuild_ratings`` replays them in that order."""

    match = models.OneToOneField(
        "gameplay.Match", on_delete=models.CASCADE, related_name="rating", verbose_name=_("match")
    )
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    rated_at = models.DateTimeField(_("rated at"))
    voided_at = models.DateTimeField(_("voided at"), null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("voided by"),
    )
    void_reason = models.CharField(_("why voided"), max_length=300, blank=True)

    class Meta:
        verbose_name = _("rated match")
        verbose_name_plural = _("rated matches")
        ordering = ["-rated_at"]
        permissions = [("void_ratedmatch", _("Can void a match's rating"))]

    def __str__(self) -> str:
        return f"{self.match}"


class RatingChange(models.Model):
    """What one rated match did to one person's rating."""

    match = models.ForeignKey(
        "gameplay.Match", on_delete=models.CASCADE, related_name="rating_changes", verbose_name=_("match")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        verbose_name=_("player"),
    )
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    seat = models.PositiveSmallIntegerField(_("seat"))
    place = models.PositiveSmallIntegerField(_("place"))
    mu_before = models.FloatField("μ before")
    sigma_before = models.FloatField("σ before")
    mu_after = models.FloatField("μ after")
    sigma_after = models.FloatField("σ after")
    before = models.IntegerField(_("before"))
    after = models.IntegerField(_("after"))
    change = models.IntegerField(_("change"))
    established = models.BooleanField(
        _("established after"), default=False, help_text=_("The rating was no longer provisional after it.")
    )
    left = models.BooleanField(_("left the match"), default=False)
    voided = models.BooleanField(_("voided"), default=False)
    at = models.DateTimeField(_("time"))

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["-at", "match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="ratings_change_once_per_match_and_person")
        ]
        indexes = [models.Index(fields=["user", "game", "at"])]

    def __str__(self) -> str:
        return named_by_id(self)
