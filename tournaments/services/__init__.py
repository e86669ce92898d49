"""The tournaments' writes. Import them from here (``from tournaments import services``); each job has
a module:

- ``entering``: joining (or coming back), pausing and withdrawing, the tournament page's heartbeat,
  the entry rules, a private tournament made by a player.
- ``arena``: seating whoever waits in an arena, nearest in the standing.
- ``swiss``: a Swiss round made (byes, tables within score groups).
- ``scoring``: a tournament table's match scored, when gameplay says it was decided or the tick finds
  it missed.
- ``lifecycle``: the calendar, the start (or a cancellation for want of players), moving on, the end
  with its podium and trophies; the tick that runs them.
- ``moderation``: disqualifying a player, cancelling a tournament.
- ``calendar``: the calendar's lines, checked and written by an administrator.
- ``forgetting``: what an erased account leaves behind.
- ``tables`` and ``shared``, below them all: seating a pairing's groups; the refusal, the budget, the
  lock order.

Rows: every row of ``tournaments.models`` is written in this package only.
"""

from .arena import arena_pair, standing_order
from .calendar import schedule_add_examples, schedule_check, schedule_delete, schedule_save
from .entering import (
    entry_refusal,
    paused_for_seat,
    shape_check,
    tournament_create_private,
    tournament_join,
    tournament_seen,
    tournament_withdraw,
)
from .forgetting import person_forget
from .lifecycle import (
    calendar_make,
    match_decided,
    schedule_next_start,
    scores_catch_up,
    swiss_move_on,
    table_scored_move_on,
    tick,
    tournament_url,
)
from .moderation import player_disqualify, tournament_cancel
from .shared import TournamentError

__all__ = [
    "TournamentError",
    "arena_pair",
    "calendar_make",
    "entry_refusal",
    "match_decided",
    "paused_for_seat",
    "person_forget",
    "player_disqualify",
    "schedule_add_examples",
    "schedule_check",
    "schedule_delete",
    "schedule_next_start",
    "schedule_save",
    "scores_catch_up",
    "shape_check",
    "standing_order",
    "swiss_move_on",
    "table_scored_move_on",
    "tick",
    "tournament_cancel",
    "tournament_create_private",
    "tournament_join",
    "tournament_seen",
    "tournament_url",
    "tournament_withdraw",
]
