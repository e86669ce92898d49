"""Who ranks where in a decided match, from its result: the sides that are rated as one (every seat
alone, or classic's two teams of two) and each side's place."""

from dataclasses import dataclass

from gameplay.engine import get_game
from gameplay.engine.classic import MATCHES, teams

from . import model


@dataclass(frozen=True)
class Standing:
    sides: list[list[int]]
    """The seats of each side."""
    places: list[int]
    """Each side's place: 1 the best, shared by equal results; sides with a person who left last."""
    left: list[bool]
    """Whether a person of the side left and never came back."""


def standing(game: str, options: dict, result: dict) -> Standing:
    """Americana: the lowest final total first, equal totals sharing a place. Classic: the highest
    score of the match's kind first (points, or games won), each side alone or the two teams of two.
    A side with a seat in ``result["left"]`` ranks below every side that stayed."""
    left = set(result.get("left") or [])
    if game == "americana":
        scores = result["totals"]
        sides = [[seat] for seat in range(len(scores))]
        lowest_first = True
    else:
        parsed = get_game(game).options_from_json(options)
        kind, _target = MATCHES[parsed.match]
        scores = result["totals"] if kind == "points" else result["games_won"]
        sides = teams(parsed)
        lowest_first = False
    gone = [any(seat in left for seat in side) for side in sides]
    return Standing(sides=sides, places=model.places(scores, lowest_first=lowest_first, gone=gone), left=gone)
