"""What happens next after a match changes: the next deal, a bot's turn, a quiet player's clock.

Tasks are queued by name once the change commits, each carrying the match version it
was scheduled for, so a task that arrives after the match has moved on does nothing.
Queuing by name keeps the service layer from importing the task (interface) layer.
"""

import random
from dataclasses import dataclass

from celery import current_app
from django.conf import settings
from django.db import transaction

from . import presence

GONE_GRACE_SECONDS = 30.0
"""A player whose every connection has been gone this long on their turn is stood in for."""
ABANDON_AFTER_SECONDS = 600.0
"""A match whose every person has been stood in for this long is abandoned."""

DEAL_NEXT_ROUND = "gameplay.tasks.deal_next_round"
ABANDON_IF_DESERTED = "gameplay.tasks.abandon_if_deserted"
PLAY_TURN = "bots.tasks.play_turn"
TAKE_OVER_IF_QUIET = "bots.tasks.take_over_if_quiet"
CLOCK, GONE = "clock", "gone"


def _queue_on_commit(name: str, args: list, countdown: float) -> None:
    transaction.on_commit(lambda: current_app.send_task(name, args=args, countdown=countdown))


@dataclass(frozen=True)
class SeatToAct:
    """What a move and its follow-up need to know of a seat: its holder, whether a bot plays it, the clock."""

    table_id: int
    position: int
    user_id: int | None
    bot_plays: bool
    """A bot's own seat, or a person's that a bot stands in for."""
    is_taken_over: bool
    turn_clock: int


def after_change(*, match_id: int, version: int, awaiting_deal: bool, seat: SeatToAct | None) -> None:
    """Queue the follow-up for a match now at ``version``.

    ``seat`` is the seat to act (None between rounds). Call inside the transaction that made the change.
    """
    if awaiting_deal:
        _queue_on_commit(DEAL_NEXT_ROUND, [match_id, version], settings.ROUND_PAUSE_SECONDS)
    elif seat is not None:
        if seat.bot_plays:
            _queue_on_commit(PLAY_TURN, [match_id, version], random.uniform(*settings.BOT_PAUSE_SECONDS))
            return
        if seat.turn_clock:
            _queue_on_commit(
                TAKE_OVER_IF_QUIET, [match_id, seat.position, version, CLOCK], float(seat.turn_clock)
            )
        if not presence.connections(seat.table_id, seat.position):
            player_gone(match_id=match_id, seat=seat.position, version=version)


def player_gone(*, match_id: int, seat: int, version: int) -> None:
    """The seat's player has no connection open on their turn: check again after the grace period."""
    _queue_on_commit(TAKE_OVER_IF_QUIET, [match_id, seat, version, GONE], GONE_GRACE_SECONDS)


def deserted(*, match_id: int) -> None:
    """Every person is stood in for: abandon the match unless one comes back in time."""
    _queue_on_commit(ABANDON_IF_DESERTED, [match_id], ABANDON_AFTER_SECONDS)
