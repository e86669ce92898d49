"""A player's profile: counts per game and averages of their online matches, their recent matches,
their ratings, their tournament trophies."""

from dataclasses import dataclass
from statistics import fmean
from typing import Any

from django.db.models import Case, F, FilteredRelation, IntegerField, OuterRef, Q, Subquery, Value, When

from gameplay.games import presenter
from gameplay.models import Move, RoundResult
from ratings import selectors as rating_selectors
from tables.models import Game
from tournaments import selectors as tournament_selectors
from tournaments.models import Trophy

from .my_matches import MatchRow, match_rows, matches_of
from .participants import ABORTED, FINISHED, took_part

RECENT = 10


@dataclass
class GameStats:
    game: str
    label: str
    played: int
    won: int
    abandoned: int
    average: float | None
    """Americana: the average charge per round; classic: the average points captured per deal."""


@dataclass
class Profile:
    player: Any
    stats: list[GameStats]
    recent: list[MatchRow]
    ratings: list[rating_selectors.GameRating]
    trophies: list[Trophy]


def _average(player, game: str) -> float | None:
    """Over the rounds (deals) of online matches that ended while ``player`` held their seat, not those
    after a replacement."""
    key = presenter(game).averaged
    held = Q(match__participants__user=player)
    whole_match = Q(held__from_move=0, held__until_move__isnull=True)
    last_move = Move.objects.filter(match=OuterRef("match"), created_at__lte=OuterRef("created_at"))
    rows = (
        RoundResult.objects.annotate(held=FilteredRelation("match__participants", condition=held))
        .filter(match__game=game, match__practice=False, held__isnull=False)
        # Looked up only for a player who held the seat for part of the match (CASE stops there).
        .annotate(
            ended_after=Case(
                When(whole_match, then=Value(0)),
                default=Subquery(last_move.order_by("-seq").values("seq")[:1]),
                output_field=IntegerField(),
            )
        )
        .filter(
            whole_match
            | Q(ended_after__gt=F("held__from_move"))
            & (Q(held__until_move__isnull=True) | Q(ended_after__lte=F("held__until_move")))
        )
        .values_list(f"summary__{key}", "held__seat")
    )
    values = [per_seat[position] for per_seat, position in rows]
    return round(fmean(values), 1) if values else None


def player_profile(*, player, viewer) -> Profile:
    """What anyone logged in may read about ``player``: counts per game and averages of online matches
    (practice matches are not counted), recent matches (practice ones too).

    The recent matches are those ``viewer`` may open: at public tables, and private ones they played in.
    """
    matches = matches_of(user=player)
    stats = []
    for game, label in Game.choices:
        mine = matches.filter(game=game, practice=False)
        stats.append(
            GameStats(
                game=game,
                label=str(label),
                played=mine.filter(status=FINISHED).count(),
                won=mine.filter(i_won=True).count(),
                abandoned=mine.filter(status=ABORTED).count(),
                average=_average(player, game),
            )
        )
    recent = matches
    if viewer.pk != player.pk and not viewer.is_staff:
        recent = recent.filter(Q(table__is_private=False) | took_part(viewer))
    return Profile(
        player=player,
        stats=stats,
        recent=match_rows(recent[:RECENT], user=player),
        ratings=rating_selectors.ratings_of(user=player),
        trophies=tournament_selectors.trophies_of(user_id=player.pk),
    )
