"""Reads for looking back: a player's matches, a match's score sheet, its replay, a player's profile.
Nothing here writes to the database. Import them from here (``from history import selectors``); each
job has a module:

- ``participants``, below the others: who held each seat and when, who may look at a match, and how
  it came out for a seat.
- ``my_matches``: the matches a player took part in, filtered, each row as they see it.
- ``sheet``: a match's score sheet, round by round (deal by deal).
- ``replay``: a finished match made again step by step with the engine, every hand face up.
- ``profiles``: what anyone logged in may read about a player.
"""

from .my_matches import MAX_SEATS, OUTCOMES, MatchRow, match_rows, matches_of
from .participants import (
    ABORTED,
    FINISHED,
    PLAYING,
    can_view,
    match_detail,
    outcome_label,
    outcome_of,
    seat_holders,
    seat_of,
)
from .profiles import RECENT, GameStats, Profile, player_profile
from .replay import (
    CHECKPOINT_STEPS,
    REPLAY_CACHE_SECONDS,
    REPLAY_FORMAT,
    WALKED_MOVES_PER_STEP,
    ReplayStep,
    ReplayUnavailable,
    replay_cost,
    replay_step,
    replayable,
)
from .sheet import score_sheet

__all__ = [
    "ABORTED",
    "CHECKPOINT_STEPS",
    "FINISHED",
    "MAX_SEATS",
    "OUTCOMES",
    "PLAYING",
    "RECENT",
    "REPLAY_CACHE_SECONDS",
    "REPLAY_FORMAT",
    "WALKED_MOVES_PER_STEP",
    "GameStats",
    "MatchRow",
    "Profile",
    "ReplayStep",
    "ReplayUnavailable",
    "can_view",
    "match_detail",
    "match_rows",
    "matches_of",
    "outcome_label",
    "outcome_of",
    "player_profile",
    "replay_cost",
    "replay_step",
    "replayable",
    "score_sheet",
    "seat_holders",
    "seat_of",
]
