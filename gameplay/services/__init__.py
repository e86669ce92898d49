"""Every write to a match goes through this package (DESIGN.md: one writer), and so does a match's
lifecycle. Import the services from here (``from gameplay import services``); each job has a module:

- ``opening``: a table opened from the lobby (its options are the game's), "Play now", a table for
  the people the pairing pool brings together, a rematch, and the deal when a table fills.
- ``moves``: ``act``, the single door for moves whoever makes them (a player's websocket frame, a
  bot's task, a stand-in), and dealing the next round; a round's and a match's end recorded.
- ``seats``: seats changing hands mid-match: a bot standing in for a quiet player and the player
  coming back, the turn clock's check, a moderator replacing a player, a banned player leaving
  every table, a closed account's name forgotten.
- ``pace``: matches at their own pace: a bot playing a move whose time ran out (for good after a few),
  a person's holidays, which stop their clocks, and how far each person has seen their match.
- ``stopping``: a moderator closing a table, a deserted match abandoned, and the periodic sweep
  that sees nothing waits forever.
- ``practice_matches``: storing a practice match played offline, once ``practice.uploads`` has
  checked it and it replays.
- ``store``, below them all: what the jobs share: the match locked, its seats read, what it waits
  for next, and its new state saved with its move, the version bumped, the news queued.

A move: one transaction, the locks taken, the engine deciding, the snapshot and the move saved
together, the version bumped, and the table told after commit.

Locks, always in this order: **Table → Match → Seat** (``store.lock_playing`` and ``tables.services``).
Rows: Match, Move, RoundResult, Participant and SeatChange are written here only; Table and Seat
only through ``tables.services``. Each public service is one durable transaction: the outermost
call, never half inside another; its events and tasks go out once it commits.
"""

from ..frames import ActionRefused
from .moves import ActResult, act, round_deal_next
from .opening import (
    PLAY_NOW_CLOCK,
    deal_when_filled,
    match_start,
    options_validate,
    play_now,
    rematch_offer,
    table_create,
    table_for_people,
)
from .pace import (
    PaceError,
    holiday_days_left,
    holiday_end,
    holiday_now,
    holiday_start,
    holidays_forget,
    pace_seen,
    pace_stand_in,
)
from .practice_matches import practice_match_store
from .seats import (
    clock_check,
    participations_forget,
    player_banned,
    player_remove_banned,
    player_replace_with_bot,
    seat_connection_lost,
    seat_reclaim,
    seat_stand_in,
)
from .stopping import SWEEP_SLACK_SECONDS, match_abandon_if_deserted, sweep, table_close
from .store import LOCK_PLAYING

__all__ = [
    "LOCK_PLAYING",
    "PLAY_NOW_CLOCK",
    "SWEEP_SLACK_SECONDS",
    "ActResult",
    "ActionRefused",
    "PaceError",
    "act",
    "clock_check",
    "deal_when_filled",
    "holiday_days_left",
    "holiday_end",
    "holiday_now",
    "holiday_start",
    "holidays_forget",
    "match_abandon_if_deserted",
    "match_start",
    "options_validate",
    "pace_seen",
    "pace_stand_in",
    "participations_forget",
    "play_now",
    "player_banned",
    "player_remove_banned",
    "player_replace_with_bot",
    "practice_match_store",
    "rematch_offer",
    "round_deal_next",
    "seat_connection_lost",
    "seat_reclaim",
    "seat_stand_in",
    "sweep",
    "table_close",
    "table_create",
    "table_for_people",
]
