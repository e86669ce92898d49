"""A tournament's standing and its tie-breaks (Buchholz, Sonneborn-Berger), from the tables played."""

from collections import defaultdict
from dataclasses import dataclass

PODIUM = 3


@dataclass(frozen=True)
class TableResult:
    sides: list[list[int]]
    """User ids per side (a side is one seat, or a team of two)."""
    places: list[int]
    """Each side's place, 1 the best, shared when level."""


@dataclass(frozen=True)
class Standee:
    user: int
    points: int
    wins: int
    matches: int
    rating: int


@dataclass(frozen=True)
class Ranked:
    user: int
    rank: int
    """1-based position."""
    points: int
    buchholz: float
    """Sum of the final points of every opponent met (per table met; partners are not opponents)."""
    sonneborn_berger: float
    """Sum of the points of every opponent finished above, half of those level."""
    wins: int
    matches: int
    rating: int


def standings(standees: list[Standee], results: list[TableResult]) -> list[Ranked]:
    """Order: points, then Buchholz, then Sonneborn-Berger, then wins, then rating, then user id (for a
    stable order); ranks 1..n in that order. Results with a person not among the standees (someone
    disqualified) still count for the others' tie-breaks only as an opponent with 0 points."""
    final_points = {standee.user: standee.points for standee in standees}
    buchholz: dict[int, float] = defaultdict(float)
    sonneborn_berger: dict[int, float] = defaultdict(float)
    for result in results:
        for side, place in zip(result.sides, result.places, strict=True):
            for other_side, other_place in zip(result.sides, result.places, strict=True):
                if other_side is side:
                    continue
                for opponent in other_side:
                    worth = final_points.get(opponent, 0)
                    share = 1.0 if place < other_place else 0.5 if place == other_place else 0.0
                    for user in side:
                        buchholz[user] += worth
                        sonneborn_berger[user] += share * worth
    ordered = sorted(
        standees,
        key=lambda standee: (
            -standee.points,
            -buchholz[standee.user],
            -sonneborn_berger[standee.user],
            -standee.wins,
            -standee.rating,
            standee.user,
        ),
    )
    return [
        Ranked(
            user=standee.user,
            rank=rank,
            points=standee.points,
            buchholz=buchholz[standee.user],
            sonneborn_berger=sonneborn_berger[standee.user],
            wins=standee.wins,
            matches=standee.matches,
            rating=standee.rating,
        )
        for rank, standee in enumerate(ordered, start=1)
    ]


def podium(ranked: list[Ranked]) -> list[Ranked]:
    """The first three who played at least one match: someone who joined and never sat down
    takes no medal even in a thin field."""
    return [entry for entry in ranked if entry.matches >= 1][:PODIUM]
