"""What happens next after a match changes: the next deal, a bot's turn, a quiet player's clock.

Tasks are queued by name once the change commits, each carrying the match version it
was scheduled for, so a task that arrives after the match has moved on does nothing.
Queuing by name keeps the service layer from importing the task (interface) layer.
"""

import random

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


def after_change(*, match_id: int, version: int, awaiting_deal: bool, to_act: int | None, seat) -> None:
    """Queue the follow-up for a match now at ``version``.

    ``seat`` is the ``tables.Seat`` of the seat to act (None between rounds). Call inside
    the transaction that made the change.
    """
    if awaiting_deal:
        _queue_on_commit(DEAL_NEXT_ROUND, [match_id, version], settings.ROUND_PAUSE_SECONDS)
    elif to_act is not None and seat is not None:
        if seat.is_bot or seat.is_taken_over:
            _queue_on_commit(PLAY_TURN, [match_id, version], random.uniform(*settings.BOT_PAUSE_SECONDS))
            return
        if seat.table.turn_clock:
            _queue_on_commit(
                TAKE_OVER_IF_QUIET, [match_id, to_act, version, CLOCK], float(seat.table.turn_clock)
            )
        if not presence.connections(seat.table_id, to_act):
            player_gone(match_id=match_id, seat=to_act, version=version)


def player_gone(*, match_id: int, seat: int, version: int) -> None:
    """The seat's player has no connection open on their turn: check again after the grace period."""
    _queue_on_commit(TAKE_OVER_IF_QUIET, [match_id, seat, version, GONE], GONE_GRACE_SECONDS)


def deserted(*, match_id: int) -> None:
    """Every person is stood in for: abandon the match unless one comes back in time."""
    _queue_on_commit(ABANDON_IF_DESERTED, [match_id], ABANDON_AFTER_SECONDS)
