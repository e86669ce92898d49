"""The tournaments' arithmetic in plain Python: points, arena tables, Swiss rounds, standings."""

from .arena import Waiting, arena_tables
from .points import PLACE_POINTS, WIN_POINTS, Scored, on_fire, place_points, score, won
from .standings import Ranked, Standee, TableResult, podium, standings
from .swiss import BYE_POINTS, SwissPlayer, SwissRound, swiss_round

__all__ = [
    "BYE_POINTS",
    "PLACE_POINTS",
    "WIN_POINTS",
    "Ranked",
    "Scored",
    "Standee",
    "SwissPlayer",
    "SwissRound",
    "TableResult",
    "Waiting",
    "arena_tables",
    "on_fire",
    "place_points",
    "podium",
    "score",
    "standings",
    "swiss_round",
    "won",
]
