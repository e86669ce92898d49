"""What every job of the services shares: the running match locked in the site's order, its seats read
as the scheduler needs them, what it waits for next, and its new state stored with the move that made
it, the version bumped and the news and the follow-up queued once it commits. The jobs' modules call
these; nothing outside the package does (``gameplay.services`` exports the services, not these)."""

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tables import events
from tables.models import Seat, Table

from .. import scheduling, signals
from ..frames import ActionRefused
from ..models import Holiday, Match, Move

SEATS = f"""
SELECT s.position, s.user_id, s.bot_level, s.is_taken_over, t.turn_clock, t.fast_bots, t.pace_hours
FROM {Seat._meta.db_table} s JOIN {Table._meta.db_table} t ON t.id = s.table_id WHERE s.table_id = %s
"""
"""``seats_to_act``' read, written out: a move runs it every time, and the ORM would compose it every time."""


def seats_to_act(match: Match) -> dict[int, scheduling.SeatToAct]:
    """The match's seats by position: who holds each, whether a bot plays it, the turn clock. Read
    in a statement of its own after the locks: a statement that waited for the table's lock would
    still see the seats as they were before that wait."""
    with connection.cursor() as cursor:
        cursor.execute(SEATS, [match.table_id])
        rows = cursor.fetchall()
    pace_hours = rows[0][-1] if rows else 0
    people = [row[1] for row in rows if row[1] is not None]
    holidays = Holiday.objects.ends_by_person(people) if pace_hours else {}
    return {
        position: scheduling.SeatToAct(
            table_id=match.table_id,
            position=position,
            user_id=user_id,
            bot_plays=bool(bot_level) or bool(taken_over),
            is_taken_over=bool(taken_over),
            turn_clock=turn_clock,
            fast_bots=bool(fast_bots),
            pace_seconds=pace_hours * settings.OWN_PACE_HOUR_SECONDS,
            holiday_until=holidays.get(user_id),
        )
        for position, user_id, bot_level, taken_over, turn_clock, fast_bots, pace_hours in rows
    }


MATCH_FIELDS = Match._meta.concrete_fields
LOCK_PLAYING = f"""
WITH locked_table AS MATERIALIZED (
    SELECT t.id FROM {Table._meta.db_table} t JOIN {Match._meta.db_table} m ON m.table_id = t.id
    WHERE m.id = %s FOR UPDATE OF t
)
SELECT {", ".join(f"m.{field.column}" for field in MATCH_FIELDS)}
FROM {Match._meta.db_table} m JOIN locked_table ON locked_table.id = m.table_id
WHERE m.id = %s FOR UPDATE OF m
"""
"""The table's row and the match's, locked in one round trip and in the site's order: the match's
row is locked as the statement's result comes out, which needs the table's row locked first."""


MATCH_ATTNAMES = [field.attname for field in MATCH_FIELDS]
MATCH_READERS = [getattr(field, "from_db_value", None) for field in MATCH_FIELDS]
"""How each column of ``LOCK_PLAYING`` is read, as its field reads it (the JSON ones); None: as it comes."""


def _match_from_row(row: tuple) -> Match:
    """The match a row of ``LOCK_PLAYING`` holds, as the ORM would have built it, without a raw
    queryset's per-query set-up on every move."""
    values = [
        value if read is None else read(value, None, connection)
        for read, value in zip(MATCH_READERS, row, strict=True)
    ]
    return Match.from_db(connection.alias, MATCH_ATTNAMES, values)


def lock_playing(match_id: int) -> Match:
    """The running match, locked in the site's order: its table's row first, then the match's."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(LOCK_PLAYING, [match_id, match_id])
            row = cursor.fetchone()
        match = None if row is None else _match_from_row(row)
    else:  # SQLite (embedded): no row locks, a write transaction holds the whole database
        match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise ActionRefused(gettext_noop("There is no such match."))
    if match.status != Match.Status.PLAYING:
        raise ActionRefused(gettext_noop("The match is over."), stale=True)
    return match


def lock_playing_at(match_id: int, expected_version: int | None) -> Match:
    """``lock_playing``, refused as stale when the match has moved on since ``expected_version`` (None:
    whatever its version)."""
    match = lock_playing(match_id)
    if expected_version is not None and expected_version != match.version:
        raise ActionRefused(
            gettext_noop("The table has moved on since; here is where it stands now."),
            stale=True,
            version=match.version,
        )
    return match


def plan_next(
    match: Match, game, state, seats: dict[int, scheduling.SeatToAct] | None = None
) -> tuple[scheduling.Plan, scheduling.SeatToAct | None]:
    """Note on the match what it now waits for and by when; the seat to act, when a seat must."""
    waited_for = (match.to_act, match.due)
    if match.status != Match.Status.PLAYING:
        plan, seat, match.to_act = scheduling.NOTHING_DUE, None, None
    else:
        match.to_act = game.to_act(state)
        awaiting_deal = game.awaiting_deal(state)
        seat = None if match.to_act is None or awaiting_deal else (seats or seats_to_act(match))[match.to_act]
        plan = scheduling.plan(awaiting_deal=awaiting_deal, seat=seat)
    match.due = plan.due
    match.due_at = None if plan.due_in is None else timezone.now() + timedelta(seconds=plan.due_in)
    if plan.due == Match.Due.CLOCK and scheduling.clock_check_needed(match):
        match.clock_check_at = match.due_at
        plan = replace(plan, clock_check=match.due_at)
    elif plan.due == Match.Due.PACE and waited_for != (match.to_act, Match.Due.PACE):
        plan = replace(plan, turn_begins=True)
    if Match.Due.PACE in (waited_for[1], match.due) and waited_for != (match.to_act, match.due):
        table_id = match.table_id
        transaction.on_commit(
            lambda: signals.pace_turns_changed.send(sender=Match, table_id=table_id), robust=True
        )
    return plan, seat


SAVED_FIELDS = [
    "state",
    "version",
    "moves_made",
    "status",
    "result",
    "finished_at",
    "turn_started_at",
    "to_act",
    "due",
    "due_at",
    "clock_check_at",
]


MOVE_FIELDS = ["match", "seq", "seat", "action", "events", "actor", "created_at"]


def _columns(model, names: list[str]) -> list[str]:
    return [model._meta.get_field(name).column for name in names]


STORE_MOVE_AND_MATCH = (
    f"WITH new_move AS (INSERT INTO {Move._meta.db_table} ({', '.join(_columns(Move, MOVE_FIELDS))}) "
    f"VALUES ({', '.join(['%s'] * len(MOVE_FIELDS))}) RETURNING id) "
    f"UPDATE {Match._meta.db_table} "
    f"SET {', '.join(f'{column} = %s' for column in _columns(Match, SAVED_FIELDS))} "
    "WHERE id = %s RETURNING (SELECT id FROM new_move)"
)
"""The move inserted and the match updated in one statement (one round trip on the move's path),
written out once rather than composed by the ORM on every move."""


def _db_values(row: Any, names: list[str], *, add: bool) -> list[Any]:
    """The values of ``names`` on ``row`` as the database takes them, as ``row.save()`` would send them."""
    fields = [row._meta.get_field(name) for name in names]
    return [field.get_db_prep_save(field.pre_save(row, add), connection) for field in fields]


def _store_move_and_match(move: Move, match: Match) -> None:
    """``move.save()`` and ``match.save(update_fields=SAVED_FIELDS)`` in one statement."""
    values = [*_db_values(move, MOVE_FIELDS, add=True), *_db_values(match, SAVED_FIELDS, add=False), match.pk]
    with connection.cursor() as cursor:
        cursor.execute(STORE_MOVE_AND_MATCH, values)
        (move.pk,) = cursor.fetchone()
    move._state.adding = False


def save(
    match: Match,
    game,
    state,
    *,
    lobby: bool = False,
    match_only: bool = False,
    seats: dict[int, scheduling.SeatToAct] | None = None,
    move: Move | None = None,
    sent: Callable[[], None] | None = None,
) -> None:
    """Store the new state, bump the version, note what is due, and queue the broadcast and the follow-up.

    ``match_only``: nothing but the match changed (no seat, no table status), see ``events.table_changed``.
    ``seats``: the table's seats by position, when the caller has just read them.
    ``move``: the move that made this state, not stored yet: stored with the match.
    ``sent``: called once the broadcast is with the channel layer.
    """
    match.state = game.state_to_json(state)
    match.version += 1
    match.turn_started_at = timezone.now()
    plan, seat = plan_next(match, game, state, seats)
    if move is not None and connection.vendor == "postgresql":
        _store_move_and_match(move, match)
    else:
        if move is not None:
            move.save(force_insert=True)
        match.save(update_fields=SAVED_FIELDS)
    events.table_changed(match.table_id, match.version, lobby=lobby, match_only=match_only, sent=sent)
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)


def save_deadline(match: Match, due_at: datetime) -> None:
    """A new deadline for the move the match waits for (a holiday began or ended), the version bumped so
    every page shows it. Holding the match's lock."""
    match.due_at = due_at
    match.version += 1
    match.save(update_fields=["due_at", "version"])
    events.table_changed(match.table_id, match.version, match_only=True)


def result(public: Mapping[str, Any], left: list[int] | None = None) -> dict:
    """A decided match's result, from its final public view; ``left``: the seats whose first person
    left and never came back (see ``moves._left``)."""
    return {
        "winners": public["winners"],
        "losers": public.get("losers", []),
        "totals": public["totals"],
        "games_won": public.get("games_won"),
        "left": left or [],
    }
