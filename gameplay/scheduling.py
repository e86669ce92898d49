"""What happens next after a match changes: the next deal, a bot's turn, a quiet player's clock.

Two paths, so a lost task never stalls a match:
- the fast path: a task queued by name once the change commits, carrying the match version it was
  scheduled for, so a task that arrives after the match has moved on does nothing (and a duplicate
  is harmless); the turn clock's is the exception: one check per match, queued for the deadline and
  queuing itself again when it finds the deadline moved on (``clock_check_needed``), instead of one
  task per move that nearly always arrives stale;
- the safety net: the match row itself says what it waits for and by when (``Match.due``,
  ``Match.due_at``); a periodic sweep (``services.sweep``, run by Celery beat) acts on whatever is
  overdue, as a task that was lost with a killed worker or a restarted broker would have.
Queuing by name keeps the service layer from importing the task (interface) layer.
"""

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import presence, signals
from .models import Match

DEAL_NEXT_ROUND = "gameplay.tasks.deal_next_round"
PLAY_TURN = "bots.tasks.play_turn"
TAKE_OVER_IF_QUIET = "bots.tasks.take_over_if_quiet"
CHECK_CLOCK = "gameplay.tasks.check_clock"
GONE = "gone"
CLOCK_CHECK_LOST_SECONDS = 5.0
"""How late past its time a queued clock check must be before it counts as lost (a killed worker, a
restarted broker) and the next turn on the clock queues another; until then the sweep stands in."""


def queue_on_commit(name: str, args: list, countdown: float = 0.0) -> None:
    """Queue task ``name`` once the transaction commits. Its arguments are a few ids and words, so
    their plain ``repr`` is what the worker logs, instead of Celery's guarded one made for any value."""
    send = partial(
        current_app.send_task, name, args=args, countdown=countdown, argsrepr=repr(args), kwargsrepr="{}"
    )
    transaction.on_commit(send)


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
    fast_bots: bool = False
    """The table's bots move in a few tenths of a second (``settings.FAST_BOT_PAUSE_SECONDS``)."""
    pace_seconds: float = 0.0
    """At a table at its own pace: the time for a move (0: a live table, on ``turn_clock``)."""
    holiday_until: datetime | None = None
    """At a table at its own pace: the end of the holiday the seat's person is on now, if any."""


@dataclass(frozen=True)
class Plan:
    """What a match now waits for, and when that is due at the latest (None: no deadline)."""

    due: str
    due_in: float | None
    countdown: float = 0.0
    """When the fast path's task runs (a bot's human-like pause is random, its deadline is not)."""
    clock_check: datetime | None = None
    """The turn-clock check to queue, for this deadline: none when the one queued already will do."""
    turn_begins: bool = False
    """At a table at its own pace: a person's turn begins (not the same turn going on), to tell them."""


NOTHING_DUE = Plan(due="", due_in=None)


def plan(*, awaiting_deal: bool, seat: SeatToAct | None) -> Plan:
    """What a match waits for: the next deal, a bot's move, or a person's move (on the clock or not, or
    at their own pace: no task, the sweep finds the deadline; a holiday holds the clock until it ends)."""
    if awaiting_deal:
        return Plan(Match.Due.DEAL, settings.ROUND_PAUSE_SECONDS, settings.ROUND_PAUSE_SECONDS)
    if seat is None:
        return NOTHING_DUE
    if seat.bot_plays:
        low, high = settings.FAST_BOT_PAUSE_SECONDS if seat.fast_bots else settings.BOT_PAUSE_SECONDS
        return Plan(Match.Due.BOT, high, random.uniform(low, high))
    if seat.pace_seconds:
        held = 0.0 if seat.holiday_until is None else (seat.holiday_until - timezone.now()).total_seconds()
        return Plan(Match.Due.PACE, max(0.0, held) + seat.pace_seconds)
    if seat.turn_clock:
        return Plan(Match.Due.CLOCK, float(seat.turn_clock))
    return Plan(Match.Due.PLAYER, None)


def after_change(*, match_id: int, version: int, plan: Plan, seat: SeatToAct | None) -> None:
    """Queue the fast path for a match now at ``version``. Call inside the transaction that changed it."""
    if plan.due == Match.Due.DEAL:
        queue_on_commit(DEAL_NEXT_ROUND, [match_id, version], plan.countdown)
    elif plan.due == Match.Due.BOT:
        queue_on_commit(PLAY_TURN, [match_id, version], plan.countdown)
    elif seat is not None and plan.due in (Match.Due.CLOCK, Match.Due.PLAYER):
        if plan.clock_check is not None:
            queue_clock_check(match_id, plan.clock_check)
        if not presence.present(seat.table_id, seat.position):
            player_gone(match_id=match_id, seat=seat.position, version=version)
    elif seat is not None and plan.due == Match.Due.PACE and plan.turn_begins and plan.due_in is not None:
        due_at = timezone.now() + timedelta(seconds=plan.due_in)
        tell = partial(
            signals.pace_turn.send,
            sender=Match,
            match_id=match_id,
            table_id=seat.table_id,
            seat=seat.position,
            user_id=seat.user_id,
            due_at=due_at,
            version=version,
        )
        transaction.on_commit(tell, robust=True)


def clock_check_needed(match: Match) -> bool:
    """Whether a match whose turn clock now runs until ``match.due_at`` needs a clock check queued: not
    when the one queued runs by then, as it queues itself again for the deadline it finds. It does when
    none is queued, when the queued one runs too late (a longer clock before), or when the queued one
    is so late it must be lost."""
    queued = match.clock_check_at
    if queued is None or match.due_at is None or queued > match.due_at:
        return True
    return queued < timezone.now() - timedelta(seconds=CLOCK_CHECK_LOST_SECONDS)


def queue_clock_check(match_id: int, at: datetime) -> None:
    """Queue, once the transaction commits, the match's clock check for ``at`` (``Match.clock_check_at``,
    which the check carries to know it is still the one queued)."""
    countdown = max(0.0, (at - timezone.now()).total_seconds())
    queue_on_commit(CHECK_CLOCK, [match_id, at.isoformat()], countdown)


def player_gone(*, match_id: int, seat: int, version: int) -> None:
    """The seat's player has no connection open on their turn: check again after the grace period
    (counted from their last connection's end, see ``presence.away_seconds``)."""
    queue_on_commit(TAKE_OVER_IF_QUIET, [match_id, seat, version, GONE], settings.GONE_GRACE_SECONDS)
