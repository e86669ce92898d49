"""Every write to a match goes through here (DESIGN.md: one writer), and so does a match's lifecycle:
opening a table (its options are the game's), dealing when it fills, "Play now", a rematch, a
moderator closing a table or replacing a player mid-match, a banned player leaving every table, the
periodic sweep, and filing a practice match played offline once it replays.

``act`` is the single door for moves, whoever makes them (a player's websocket frame, a bot's task, a
stand-in): one transaction, the locks taken, the engine deciding, the snapshot and the move saved
together, the version bumped, and the table told after commit.

Locks, always in this order: **Table → Match → Seat** (``_lock_playing`` and ``tables.services``).
Rows: Match, Move, RoundResult, Participant and SeatChange are written here only; Table and Seat
only through ``tables.services``. Each public service is one durable transaction: the outermost
call, never half inside another; its events and tasks go out once it commits.
"""

import hashlib
import json
import math
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts import limits
from observe import logs, metrics
from tables import events
from tables import services as table_services
from tables.models import BotLevel, Seat, Table
from tables.services import TableError

from . import presence, scheduling, signals
from .engine import IllegalAction, get_game
from .engine.core import Event
from .engine.replay import Replayed, ReplayError, replay
from .engine.step import step as engine_step
from .frames import ActionRefused
from .games import presenter, words
from .models import Match, Move, Participant, RoundResult, SeatChange

PLAY_NOW_CLOCK = 45
"""The turn clock of the tables "Play now" makes: with bots, and with the people the pool pairs."""
SWEEP_SLACK_SECONDS = 1.0
"""How late past its deadline a match must be before the sweep steps in for the fast path's task."""


@dataclass(frozen=True)
class ActResult:
    match_id: int
    version: int
    events: list[Event]
    match: Match | None = None
    """The match as a move committed it, when the move changed nothing else (no seat, no round's
    end); then ``state`` is its engine state and ``move`` the move: all a reader of the table needs."""
    state: Any = None
    move: Move | None = None


# --- Opening tables ------------------------------------------------------------------------------


def options_validate(*, game: str, options: dict) -> dict:
    """The options in the engine's own form; ``TableError`` with the engine's reason when invalid."""
    try:
        engine = get_game(game)
        return engine.options_to_json(engine.options_from_json(options))
    except ValueError as error:
        raise TableError(str(error)) from None


@transaction.atomic(durable=True)
def table_create(
    *,
    host,
    game: str,
    options: dict,
    turn_clock: int,
    is_private: bool,
    fast_bots: bool = False,
    rated: bool = False,
) -> Table:
    """A new table of ``game`` with the host in seat 0 and every other seat free; ``rated``: the host
    asks for a rated table (``tables.rated`` decides whether its match is, from who sits there)."""
    return table_services.table_new(
        host=host,
        game=game,
        options=options_validate(game=game, options=options),
        turn_clock=turn_clock,
        is_private=is_private,
        fast_bots=fast_bots,
        rated_wanted=rated,
    )


@transaction.atomic(durable=True)
def play_now(*, user, game: str, fast_bots: bool = False) -> Table:
    """One click: a private table of the game's default options, the player in seat 0 and
    normal bots everywhere else (``fast_bots``: quick ones); the match starts at once."""
    table = table_services.table_new(
        host=user,
        game=game,
        options=options_validate(game=game, options={}),
        turn_clock=PLAY_NOW_CLOCK,
        is_private=True,
        fast_bots=fast_bots,
    )
    table_services.seats_fill_with_bots(table)
    table_services.table_start_if_full(table)
    return table


def table_for_people(*, people: list, game: str, options: dict, rated: bool, bot_level: str = "") -> Table:
    """A public table of ``game`` for ``people`` the pairing pool brought together, in that order from
    seat 0 (the first hosts); with ``bot_level``, bots of that level in the seats left. ``rated``: the
    pool's rated side (``tables.rated`` still decides: bots, or the same people too often today, make
    it casual). Its match starts at once. Inside the caller's transaction."""
    table = table_services.table_new(
        host=people[0],
        game=game,
        options=options_validate(game=game, options=options),
        turn_clock=PLAY_NOW_CLOCK,
        is_private=False,
        rated_wanted=rated,
    )
    table = table_services.table_lock(table.pk)
    table_services.seats_fill_with_people(table, people[1:])
    if bot_level:
        table_services.seats_fill_with_bots(table, bot_level)
    if not table_services.table_start_if_full(table):
        raise TableError(_("Every seat must hold a person or a bot before the match starts."))
    return table


@transaction.atomic(durable=True)
def rematch_offer(*, table_id: int, by) -> Table:
    """After a match: a new table with the same options and seats. The first to ask creates it
    (and hosts it); the other players' seats are kept for them until they join."""
    table = table_services.table_lock(table_id)
    if table.status != Table.Status.FINISHED:
        raise TableError(_("A rematch can be offered once the match is over."))
    if not table.seats.filter(user=by).exists():
        raise TableError(_("Only the players of this match can ask for a rematch."))
    rematch_id = Table.objects.filter(rematch_of=table).values_list("pk", flat=True).first()
    if rematch_id is not None:
        rematch = table_services.table_lock(rematch_id)
        table_services.table_join_rematch(rematch, user=by)
        return rematch
    rematch = table_services.table_new_rematch(table, by=by)
    table_services.table_start_if_full(rematch)
    events.table_changed(table.pk)
    return rematch


def match_start(*, table: Table) -> Match:
    """Deal a new match for ``table`` from a fresh seed, and record who plays it.

    Called when the table's last seat fills (``tables.signals.table_filled``), inside that
    transaction, holding the table's lock.
    """
    game = get_game(table.game)
    seed = secrets.randbits(63)
    state = game.new_match(game.options_from_json(table.options), seed)
    holders = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    match = Match(
        table=table, game=table.game, options=table.options, seed=seed, state=game.state_to_json(state)
    )
    plan, seat = _plan_next(match, game, state)
    match.save()
    Participant.objects.bulk_create(
        Participant(
            match=match,
            seat=holder.position,
            user=holder.user,
            bot_level=holder.bot_level,
            name=holder.user.username if holder.user_id else "",
        )
        for holder in holders
    )
    events.table_changed(table.pk, match.version)
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)
    return match


def deal_when_filled(sender, *, table: Table, **kwargs) -> None:
    """``tables.signals.table_filled``'s receiver (connected in ``apps``)."""
    match_start(table=table)


# --- The match's own write path ------------------------------------------------------------------


SEATS = f"""
SELECT s.position, s.user_id, s.bot_level, s.is_taken_over, t.turn_clock, t.fast_bots
FROM {Seat._meta.db_table} s JOIN {Table._meta.db_table} t ON t.id = s.table_id WHERE s.table_id = %s
"""
"""``_seats``' read, written out: a move runs it every time, and the ORM would compose it every time."""


def _seats(match: Match) -> dict[int, scheduling.SeatToAct]:
    """The match's seats by position: who holds each, whether a bot plays it, the turn clock. Read
    in a statement of its own after the locks: a statement that waited for the table's lock would
    still see the seats as they were before that wait."""
    with connection.cursor() as cursor:
        cursor.execute(SEATS, [match.table_id])
        rows = cursor.fetchall()
    return {
        position: scheduling.SeatToAct(
            table_id=match.table_id,
            position=position,
            user_id=user_id,
            bot_plays=bool(bot_level) or bool(taken_over),
            is_taken_over=bool(taken_over),
            turn_clock=turn_clock,
            fast_bots=bool(fast_bots),
        )
        for position, user_id, bot_level, taken_over, turn_clock, fast_bots in rows
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


def _lock_playing(match_id: int) -> Match:
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


def _plan_next(
    match: Match, game, state, seats: dict[int, scheduling.SeatToAct] | None = None
) -> tuple[scheduling.Plan, scheduling.SeatToAct | None]:
    """Note on the match what it now waits for and by when; the seat to act, when a seat must."""
    if match.status != Match.Status.PLAYING:
        plan, seat, match.to_act = scheduling.NOTHING_DUE, None, None
    else:
        match.to_act = game.to_act(state)
        awaiting_deal = game.awaiting_deal(state)
        seat = None if match.to_act is None or awaiting_deal else (seats or _seats(match))[match.to_act]
        plan = scheduling.plan(awaiting_deal=awaiting_deal, seat=seat)
    match.due = plan.due
    match.due_at = None if plan.due_in is None else timezone.now() + timedelta(seconds=plan.due_in)
    if plan.due == Match.Due.CLOCK and scheduling.clock_check_needed(match):
        match.clock_check_at = match.due_at
        plan = replace(plan, clock_check=match.due_at)
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


def _save(
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
    plan, seat = _plan_next(match, game, state, seats)
    if move is not None and connection.vendor == "postgresql":
        _store_move_and_match(move, match)
    else:
        if move is not None:
            move.save(force_insert=True)
        match.save(update_fields=SAVED_FIELDS)
    events.table_changed(match.table_id, match.version, lobby=lobby, match_only=match_only, sent=sent)
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)


@logs.from_keywords("match_id")
@transaction.atomic(durable=True)
def act(
    *,
    match_id: int,
    seat: int,
    action: dict,
    actor: str = Move.Actor.PLAYER,
    expected_version: int | None = None,
    reclaim: bool = False,
    user_id: int | None = None,
    committed: Callable[[ActResult], None] | None = None,
) -> ActResult:
    """Make ``action`` (its JSON form) for ``seat``.

    ``expected_version`` is the version the mover saw; when the match has moved on
    since (a double click, a second tab, a late task) the move is refused as stale
    and nothing changes. An illegal move raises ``ActionRefused`` with the engine's
    reason and nothing is saved. ``reclaim``: the mover is the seat's own player, so a
    bot standing in for them steps aside. ``user_id``: the person moving, refused unless
    the seat is theirs. ``committed``: called with the result once the move is committed, before
    the move's news goes out (a server process takes the move as its latest read of the table, so
    its viewers' updates find the table read already).
    """
    started = time.perf_counter()
    result: ActResult | None = None
    if committed is not None:
        # Registered before the news (``_save``): commit hooks run in order.
        transaction.on_commit(lambda: committed(result), robust=True)
    match = _locked_playing_at(match_id, expected_version)
    seats = _seats(match)
    if user_id is not None and (seat not in seats or seats[seat].user_id != user_id):
        raise ActionRefused(gettext_noop("You are watching this table: only its players can play."))
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    try:
        made_step = engine_step(game, state, seat, action)
    except IllegalAction as error:  # a move the rules refuse, or no move at all (``NotAMove``)
        raise ActionRefused(error.template, error.params) from None
    happened = made_step.events
    made = match.moves_made
    seat_returned = reclaim and seats[seat].is_taken_over and _seat_back(match, seat, after_move=made)
    match.moves_made = made + 1
    move = Move(
        match=match, seq=match.moves_made, seat=seat, action=made_step.action, events=happened, actor=actor
    )
    if seat_returned:
        seats[seat] = replace(seats[seat], bot_plays=False, is_taken_over=False)
    over = game.is_over(state)
    if (ended := made_step.round_over) is not None:
        _record_round(match, ended.number, ended.public)
        if over:
            _finish(match, ended.public, seats)
    _save(
        match,
        game,
        state,
        lobby=over,
        match_only=not (over or seat_returned),
        seats=seats,
        move=move,
        sent=lambda: _broadcast_measured(match.game, started),
    )
    if ended is not None or seat_returned:
        result = ActResult(match_id=match.pk, version=match.version, events=happened)
    else:
        result = ActResult(
            match_id=match.pk, version=match.version, events=happened, match=match, state=state, move=move
        )
    return result


def _broadcast_measured(game: str, started: float) -> None:
    """A move committed and its news out: counted, and how long it took from its start."""
    metrics.MOVES.labels(game=game).inc()
    metrics.MOVE_BROADCAST_SECONDS.observe(time.perf_counter() - started)


def _locked_playing_at(match_id: int, expected_version: int | None) -> Match:
    match = _lock_playing(match_id)
    if expected_version is not None and expected_version != match.version:
        raise ActionRefused(
            gettext_noop("The table has moved on since; here is where it stands now."),
            stale=True,
            version=match.version,
        )
    return match


def _record_round(match: Match, number: int, public: dict) -> None:
    """One score-sheet row, from the public view of the round just finished."""
    RoundResult.objects.create(
        match=match, number=number, summary=presenter(match.game).round_summary(public)
    )


def _result(public: Mapping[str, Any], left: list[int] | None = None) -> dict:
    """A decided match's result, from its final public view; ``left``: the seats whose first person
    left and never came back (see ``_left``)."""
    return {
        "winners": public["winners"],
        "losers": public.get("losers", []),
        "totals": public["totals"],
        "games_won": public.get("games_won"),
        "left": left or [],
    }


def _left(match: Match, seats: dict[int, scheduling.SeatToAct]) -> list[int]:
    """The seats whose first person was gone at the end: replaced by a moderator, or stood in for by
    the bot with no page of the table open. A person stood in for who is still there (a slow last
    turn, the page open) keeps the seat's result, as does one who came back."""
    replaced = set(
        Participant.objects.filter(
            match=match, from_move=0, user__isnull=False, until_move__isnull=False
        ).values_list("seat", flat=True)
    )
    return sorted(
        position
        for position, seat in seats.items()
        if position in replaced
        or (seat.is_taken_over and presence.away_seconds(match.table_id, position) is not None)
    )


def _finish(match: Match, public: dict, seats: dict[int, scheduling.SeatToAct]) -> None:
    """The match is decided: record the result and free the table for a rematch. The apps above
    (ratings) hear of it once it commits, before the table's news goes out (``signals``)."""
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.result = _result(public, _left(match, seats))
    table_services.table_mark_finished(match.table_id, at=match.finished_at)
    match_id = match.pk
    transaction.on_commit(lambda: signals.match_finished.send(sender=Match, match_id=match_id), robust=True)


@transaction.atomic(durable=True)
def round_deal_next(*, match_id: int, expected_version: int) -> ActResult | None:
    """Deal the next round once the finished one has been on show; stale calls do nothing."""
    try:
        match = _locked_playing_at(match_id, expected_version)
    except ActionRefused:
        return None
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if not game.awaiting_deal(state):
        return None
    happened = game.next_round(state)
    match.deal_events, match.dealt_after_move = happened, match.moves_made
    match.save(update_fields=["deal_events", "dealt_after_move"])
    _save(match, game, state, match_only=True)
    return ActResult(match_id=match.pk, version=match.version, events=happened)


# --- Seats changing hands mid-match --------------------------------------------------------------


def _seat_back(match: Match, seat: int, *, after_move: int) -> bool:
    """The player is back: a bot standing in for them leaves the seat. True when one did."""
    if not table_services.seat_return(match.table_id, seat):
        return False
    SeatChange.objects.create(match=match, seat=seat, kind=SeatChange.Kind.BACK, after_move=after_move)
    return True


@transaction.atomic(durable=True)
def seat_reclaim(*, match_id: int, seat: int) -> bool:
    """The player presses "I'm back": their seat is theirs again (the clock restarts if it is their turn)."""
    match = _lock_playing(match_id)
    if not _seat_back(match, seat, after_move=match.moves_made):
        return False
    game = get_game(match.game)
    _save(match, game, game.state_from_json(match.state))
    return True


def _gone(table_id: int, seat: int, turn_started_at) -> bool:
    """The seat's player has had no connection open for the whole grace period, counted from their last
    connection's end, and from the turn's start for one who never opened the table (a page still loading)."""
    away = presence.away_seconds(table_id, seat)
    grace = settings.GONE_GRACE_SECONDS
    on_turn = (timezone.now() - turn_started_at).total_seconds()
    return away is not None and min(away, on_turn) >= grace


@transaction.atomic(durable=True)
def seat_stand_in(*, match_id: int, seat: int, expected_version: int, only_if_gone: bool = False) -> bool:
    """A bot stands in for a quiet player (clock run out, connection gone), visibly, until they return.

    Refused (False) when the match has moved on since the check was scheduled, or, with
    ``only_if_gone``, unless the player's connections have all been gone for the grace period.
    """
    try:
        match = _locked_playing_at(match_id, expected_version)
    except ActionRefused:
        return False
    return _stand_in(match, seat, only_if_gone=only_if_gone)


def _stand_in(match: Match, seat: int, *, only_if_gone: bool = False) -> bool:
    """``seat_stand_in`` on the locked ``match``."""
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if game.to_act(state) != seat:
        return False
    if only_if_gone and not _gone(match.table_id, seat, match.turn_started_at):
        return False
    if not table_services.seat_stand_in(match.table_id, seat):
        return False
    SeatChange.objects.create(
        match=match, seat=seat, kind=SeatChange.Kind.STOOD_IN, after_move=match.moves_made
    )
    if match.clock_check_at is not None and match.clock_check_at <= timezone.now():
        match.clock_check_at = None  # run now, late or lost: the next turn on the clock queues one
    _save(match, game, state)
    return True


@transaction.atomic(durable=True)
def clock_check(*, match_id: int, queued_for: datetime) -> bool:
    """The match's turn-clock check, queued for ``queued_for``, runs: a bot stands in if the turn's clock
    has run out; if the players have moved since, and another turn's clock now runs, the check queues
    itself again for that turn's deadline. A check that is no longer the one queued (run twice, or
    taken to be lost and replaced) may stand in but never queues another, so one chain goes on.
    Whether a bot stood in."""
    try:
        match = _lock_playing(match_id)
    except ActionRefused:
        return False
    mine = match.clock_check_at == queued_for
    if match.due == Match.Due.CLOCK and match.to_act is not None and match.due_at <= timezone.now():
        if _stand_in(match, match.to_act):
            return True
    elif match.due == Match.Due.CLOCK and mine:
        match.clock_check_at = match.due_at
        match.save(update_fields=["clock_check_at"])
        scheduling.queue_clock_check(match.pk, match.due_at)
        return False
    if mine:
        # Nothing on the clock to check, or a bot could not stand in (nobody to stand in for): the
        # chain ends, and the next turn on the clock starts one.
        match.clock_check_at = None
        match.save(update_fields=["clock_check_at"])
    return False


@transaction.atomic(durable=True)
def seat_connection_lost(*, table_id: int, seat: int) -> None:
    """The seat's last connection closed: if it is their turn, check again after the grace period."""
    match = Match.objects.filter(table_id=table_id, status=Match.Status.PLAYING).first()
    if match is not None and match.to_act == seat and match.due in (Match.Due.CLOCK, Match.Due.PLAYER):
        scheduling.player_gone(match_id=match.pk, seat=seat, version=match.version)


@transaction.atomic(durable=True)
def player_replace_with_bot(*, table_id: int, position: int) -> Seat:
    """A moderator removes a person from a seat for good; a normal bot takes it, mid-match too: the
    match records the change, every seat hears of it and, if it is that seat's turn, the bot plays."""
    table = table_services.table_lock(table_id)
    if table.status not in Table.NOT_OVER:
        raise TableError(_("This table's match is over."))
    return _replace_with_bot(table, position)


@transaction.atomic(durable=True)
def player_remove_banned(*, table_id: int, user_id: int) -> None:
    """A banned person leaves the table for good: in a running match a bot takes their seat at once (as
    ``player_replace_with_bot``), at a table still waiting they stand up and no seat is kept for them.
    Decided under the table's lock, so a table that started meanwhile is not missed."""
    table = table_services.table_lock(table_id)
    if table.status == Table.Status.WAITING:
        table_services.seat_vacate(table, user_id=user_id)
        return
    position = table.seats.filter(user_id=user_id).values_list("position", flat=True).first()
    if table.status == Table.Status.PLAYING and position is not None:
        _replace_with_bot(table, position)


def player_banned(sender, *, user_id: int, **kwargs) -> None:
    """``accounts.signals.user_banned``'s receiver (connected in ``apps``), once the ban has committed:
    their live pages are told to close, then every table in play lets them go, each in a transaction of
    its own (as the sweep does)."""
    events.user_banned(user_id)
    tables = (
        Seat.objects.filter(
            Q(user_id=user_id) | Q(reserved_for_id=user_id),
            table__status__in=Table.NOT_OVER,
        )
        .values_list("table_id", flat=True)
        .distinct()
    )
    for table_id in tables:
        player_remove_banned(table_id=table_id, user_id=user_id)


def _replace_with_bot(table: Table, position: int) -> Seat:
    """A normal bot takes the seat for good (see ``player_replace_with_bot``). Holding the table's lock."""
    match = Match.objects.select_for_update().filter(table=table, status=Match.Status.PLAYING).first()
    seat = table_services.seat_give_to_bot(table, position)
    if match is None:
        table_services.table_start_if_full(table)
        events.table_changed(table.pk)
        return seat
    moves = match.moves_made
    Participant.objects.filter(match=match, seat=position, until_move__isnull=True).update(until_move=moves)
    Participant.objects.create(match=match, seat=position, bot_level=seat.bot_level, from_move=moves)
    SeatChange.objects.create(match=match, seat=position, kind=SeatChange.Kind.REPLACED, after_move=moves)
    game = get_game(match.game)
    _save(match, game, game.state_from_json(match.state))
    return seat


def participations_forget(*, user_id: int) -> int:
    """A closed account's seats read "a deleted player" in every match from now on: the name kept for
    them is emptied, while the seats, their moves and their scores stay, so each match stays whole and
    replays for the others. Inside the caller's transaction; how many seats were renamed."""
    return Participant.objects.filter(user_id=user_id).exclude(name="").update(name="")


# --- Stopping a match ----------------------------------------------------------------------------


def _abort(match: Match, reason: str) -> None:
    """Stop a running match for good, recording why. Holding the table's and the match's locks."""
    match.status = Match.Status.ABORTED
    match.abort_reason = reason
    match.finished_at = timezone.now()
    match.version += 1
    match.to_act, match.due, match.due_at = None, "", None
    match.save(update_fields=["status", "abort_reason", "finished_at", "version", "to_act", "due", "due_at"])
    events.table_changed(match.table_id, match.version)


@transaction.atomic(durable=True)
def table_close(*, table_id: int, reason: str) -> Table:
    """Close a table for good (a moderator's action); a running match is recorded as aborted, ``reason``
    (stored untranslated, each player reads it in their own language)."""
    table = table_services.table_lock(table_id)
    if table.status == Table.Status.CLOSED:
        return table
    match = Match.objects.select_for_update().filter(table=table, status=Match.Status.PLAYING).first()
    if match is not None:
        _abort(match, reason)
    table_services.table_mark_closed(table)
    return table


@transaction.atomic(durable=True)
def match_abandon_if_deserted(*, match_id: int) -> bool:
    """Abandon a match whose every person has been stood in for by a bot for the whole wait."""
    try:
        match = _lock_playing(match_id)
    except ActionRefused:
        return False
    people = Seat.objects.filter(table_id=match.table_id, user__isnull=False)
    cutoff = timezone.now() - timedelta(seconds=settings.ABANDON_AFTER_SECONDS)
    if not people.exists() or people.filter(Q(is_taken_over=False) | Q(taken_over_at__gt=cutoff)).exists():
        return False
    _abort(match, gettext_noop("Abandoned: every player was away for ten minutes."))
    table_services.table_mark_closed(table_services.table_lock(match.table_id))
    return True


# --- The sweep: nothing waits forever -------------------------------------------------------------


@transaction.atomic(durable=True)
def _due_refresh(*, match_id: int, expected_version: int) -> None:
    """Work out again what a match waits for (a match from before due times were kept, or a bot's
    turn whose task was lost) and queue its fast path anew, without a new version."""
    try:
        match = _locked_playing_at(match_id, expected_version)
    except ActionRefused:
        return
    game = get_game(match.game)
    plan, seat = _plan_next(match, game, game.state_from_json(match.state))
    match.save(update_fields=["to_act", "due", "due_at", "clock_check_at"])
    if plan.due == Match.Due.BOT:
        plan = replace(plan, countdown=0.0)  # the bot has waited long enough already
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)


def sweep() -> int:
    """Act on every running match that is overdue, as its lost or late task would have; how many it
    acted on. Each step is the same idempotent service the task calls, so a sweep racing a task (or
    another sweep) makes one change, never two."""
    now = timezone.now()
    acted = 0
    overdue = list(
        Match.objects.filter(
            status=Match.Status.PLAYING, due_at__lt=now - timedelta(seconds=SWEEP_SLACK_SECONDS)
        ).values_list("pk", "version", "due", "to_act")
    )
    metrics.SWEEP_OVERDUE.set(len(overdue))
    for match_id, version, due, to_act in overdue:
        acted += 1
        if due == Match.Due.DEAL:
            round_deal_next(match_id=match_id, expected_version=version)
        elif due == Match.Due.CLOCK and to_act is not None:
            seat_stand_in(match_id=match_id, seat=to_act, expected_version=version)
        else:
            _due_refresh(match_id=match_id, expected_version=version)
    waiting_on_people = Match.objects.filter(
        status=Match.Status.PLAYING, due__in=[Match.Due.CLOCK, Match.Due.PLAYER], to_act__isnull=False
    ).values_list("pk", "version", "table_id", "to_act", "turn_started_at")
    for match_id, version, table_id, to_act, turn_started_at in waiting_on_people:
        if _gone(table_id, to_act, turn_started_at):
            acted += seat_stand_in(
                match_id=match_id, seat=to_act, expected_version=version, only_if_gone=True
            )
    cutoff = now - timedelta(seconds=settings.ABANDON_AFTER_SECONDS)
    deserted = (
        Match.objects.filter(
            status=Match.Status.PLAYING,
            table__seats__is_taken_over=True,
            table__seats__taken_over_at__lte=cutoff,
        )
        .values_list("pk", flat=True)
        .distinct()
    )
    for match_id in deserted:
        acted += match_abandon_if_deserted(match_id=match_id)
    return acted


# --- Practice matches played offline, saved afterwards ---------------------------------------------

PRACTICE_MAX_ACTIONS = 20_000
"""Far beyond the longest match bots play (about 2,600 actions: Americana to 501 for two)."""
PRACTICE_CLOCK_SLACK = timedelta(minutes=10)
"""How far ahead of the server's clock a device's clock may run."""
PRACTICE_MAX_AGE = timedelta(days=366)
"""How long after its start a practice match may still be saved (a device keeps it until then)."""
PRACTICE_MAX_DEPTH = 3
"""Lists and objects in an upload nest no deeper than its moves: the upload, its list of moves, a move."""
PRACTICE_MAX_TEXT = 64
"""No text in an upload is longer: a game, a card, a time, the practice's version."""
PRACTICE_BUDGET = "practice-upload:{user_id}"
"""The name of a person's budget of practice uploads (``accounts.limits``)."""
BOTS_WANTED = gettext_noop("Name each bot's level (easy, normal or hard), one for each other seat.")
TOO_DEEP = gettext_noop(
    "The upload is nested too deep: a practice match is an object, with a list of moves, each an object."
)


class PracticeRefused(Exception):
    """An uploaded practice match that is not saved; the text says why, in the active language."""


class PracticeThrottled(PracticeRefused):
    """The person sent more uploads, or more refused ones, than their budget allows: ``wait`` is how
    many seconds until the next is taken."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        now = timezone.now()
        later = now + timedelta(minutes=math.ceil(wait / 60))  # said in whole minutes, rounded up
        super().__init__(
            _("You are saving practice matches faster than the site takes them: try again in %(wait)s.")
            % {"wait": timeuntil(later, now, depth=2)}
        )


@dataclass(frozen=True)
class PracticeUpload:
    """A practice match as the browser sends it, its shape checked (whether it replays is not yet)."""

    game: str
    options: object
    seed: object
    bots: list[str]
    actions: list
    started_at: datetime
    finished_at: datetime


def _moment(value: object) -> datetime | None:
    """An ISO 8601 date and time with its time zone, or None."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _practice_parsed(upload: object) -> object:
    """The upload as Python: parsed when it is JSON text (a request's body), as it is otherwise."""
    if not isinstance(upload, bytes | str):
        return upload
    try:
        return json.loads(upload)
    except RecursionError:  # Python's parser recurses once per level of nesting
        raise PracticeRefused(_(TOO_DEEP)) from None
    except ValueError:  # bytes that are not UTF-8 too
        raise PracticeRefused(_("The upload is not valid JSON.")) from None


def _practice_bounded(data: object, depth: int = 0) -> None:
    """``PracticeRefused`` unless every text in ``data`` (found at ``depth`` in the upload) is short,
    every number within 64 bits and nothing nested deeper than a move: so no refusal echoes a megabyte
    back, and nothing that reads the upload (an error's ``repr``, the engine) recurses deep. One pass,
    without recursion."""
    pending = [(data, depth)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth == PRACTICE_MAX_DEPTH:
                raise PracticeRefused(_(TOO_DEEP))
            children = [*value, *value.values()] if isinstance(value, dict) else value
            pending.extend((child, depth + 1) for child in children)
        elif (isinstance(value, str) and len(value) > PRACTICE_MAX_TEXT) or (
            isinstance(value, int | float) and not abs(value) < 2**64  # NaN too
        ):
            raise PracticeRefused(
                _("The upload holds a text longer than %(count)d characters or a number beyond 64 bits.")
                % {"count": PRACTICE_MAX_TEXT}
            )


def _practice_upload(data: object) -> PracticeUpload:
    """The upload's fields, or ``PracticeRefused`` saying which is wrong. The engine checks the game,
    the options and the seed when it replays."""
    if not isinstance(data, dict):
        raise PracticeRefused(_("The upload must be a JSON object."))
    # The moves, nearly all of it, are bounded as the engine reads them (``_practice_digest``).
    _practice_bounded({key: value for key, value in data.items() if key != "actions"})
    if data.get("seat") != 0:
        raise PracticeRefused(_("In a practice match the player sits at seat 0."))
    bots = data.get("bots")
    if not isinstance(bots, list) or not all(level in BotLevel.values for level in bots):
        raise PracticeRefused(_(BOTS_WANTED))
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise PracticeRefused(_("The moves must be a list."))
    if len(actions) > PRACTICE_MAX_ACTIONS:
        raise PracticeRefused(
            _("A practice match has at most %(count)d moves.") % {"count": PRACTICE_MAX_ACTIONS}
        )
    started_at, finished_at = _moment(data.get("started_at")), _moment(data.get("finished_at"))
    latest = timezone.now() + PRACTICE_CLOCK_SLACK
    if not (started_at and finished_at and started_at <= finished_at <= latest):
        raise PracticeRefused(
            _("Start and end must be ISO 8601 times with a time zone, the start first, not in the future.")
        )
    if started_at < latest - PRACTICE_CLOCK_SLACK - PRACTICE_MAX_AGE:
        raise PracticeRefused(
            _("A practice match is saved within %(days)d days of its start; this one is older.")
            % {"days": PRACTICE_MAX_AGE.days}
        )
    bundle = data.get("bundle")
    if not isinstance(bundle, str) or not 0 < len(bundle) <= 64:
        raise PracticeRefused(_("The upload must name the version of the practice it was played with."))
    return PracticeUpload(
        game=data.get("game"),
        options=data.get("options"),
        seed=data.get("seed"),
        bots=bots,
        actions=actions,
        started_at=started_at,
        finished_at=finished_at,
    )


def _practice_digest(user, upload: PracticeUpload) -> str | None:
    """What names this person's match once saved: a digest of its game, options, seed, bots and moves
    in the engine's own form, read without replaying it, so a match sent again costs nothing. None
    when they are not even well formed: such an upload never replays (the replay says why, quoting the
    first move that is not one, which is checked to be small enough to quote)."""
    try:
        game = get_game(upload.game)
        options = game.options_to_json(game.options_from_json(upload.options))
    except ValueError:
        return None
    actions = []
    for action in upload.actions:
        try:
            actions.append(game.action_to_json(game.action_from_json(action)))
        except (ValueError, TypeError, RecursionError):  # RecursionError: quoting a deep one
            _practice_bounded(action, depth=2)  # a move sits in a list in the upload
            return None
    record = {
        "user": user.pk,
        "game": upload.game,
        "options": options,
        "seed": upload.seed,
        "bots": upload.bots,
        "actions": actions,
    }
    return hashlib.sha256(json.dumps(record, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _practice_replayed(upload: PracticeUpload) -> tuple[Replayed, dict]:
    """The upload replayed through the engine to the match's end, and its options in the engine's own
    form; or ``PracticeRefused`` naming the step."""
    try:
        replayed = replay(upload.game, upload.options, upload.seed, upload.actions)
    except ReplayError as error:
        reason = words.explain(error.template, error.params)
        if not error.step:
            raise PracticeRefused(reason) from None
        raise PracticeRefused(
            _("Move %(step)d does not replay: %(reason)s") % {"step": error.step, "reason": reason}
        ) from None
    if not replayed.game.is_over(replayed.state):
        raise PracticeRefused(
            _("The match is not finished: it stops after move %(count)d.") % {"count": len(upload.actions)}
        )
    options = options_validate(game=upload.game, options=upload.options)
    if len(upload.bots) != options["players"] - 1:
        raise PracticeRefused(_(BOTS_WANTED))
    return replayed, options


def _practice_budget(
    user, address: str | None, steps: float, *, owe: bool = False
) -> limits.Shortfall | None:
    """Spend ``steps`` of the person's upload budget and, from a browser, of their ``address``'s
    (``accounts.limits.spend_all``, shared by every server process): None when spent, else the one
    short and the seconds until the steps are there."""
    budgets = [
        limits.Budget(
            PRACTICE_BUDGET.format(user_id=user.pk),
            settings.PRACTICE_UPLOADS_PER_HOUR / 3600,
            settings.PRACTICE_UPLOAD_BURST,
        )
    ]
    if address is not None:
        budgets.append(
            limits.Budget(
                PRACTICE_BUDGET.format(user_id=f"addr:{address}"),
                settings.PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR / 3600,
                settings.PRACTICE_UPLOAD_ADDRESS_BURST,
            )
        )
    return limits.spend_all(*budgets, cost=steps, owe=owe)


def _practice_spend(user, address: str | None, steps: float) -> None:
    """Take ``steps`` of the person's budget, or ``PracticeThrottled`` saying when to send again.
    ``steps=0`` only asks whether the person is in debt (refused unread then). An upload refused
    here after it was read still costs its reading, one step owed: whoever sends again at once what
    they cannot afford is soon refused unread. The wait said counts that step, and the one step an
    upload needs at least after a debt."""
    shortfall = _practice_budget(user, address, steps)
    if shortfall is None:
        return
    if steps:
        _practice_budget(user, address, 1, owe=True)
    raise PracticeThrottled(shortfall.wait + 1 / shortfall.budget.rate)


@contextmanager
def _refusal_charged(user, address: str | None) -> Iterator[None]:
    """An upload refused in here costs its sender ``settings.PRACTICE_REFUSED_UPLOAD_STEPS``, owed by
    one who has no steps left: a forger pays more than a player saving their matches."""
    try:
        yield
    except PracticeRefused:
        _practice_budget(user, address, settings.PRACTICE_REFUSED_UPLOAD_STEPS, owe=True)
        raise


def _practice_room(user) -> None:
    """``PracticeRefused`` when the person's history already keeps as many practice matches as it may."""
    kept = settings.PRACTICE_MATCHES_KEPT
    if Match.objects.filter(practice=True, table__host=user).count() >= kept:
        raise PracticeRefused(
            ngettext(
                "Your history already keeps %(count)d practice match, the most it keeps for one person, "
                "so this one is not saved. It stays on this device, in the list of practice matches below.",
                "Your history already keeps %(count)d practice matches, the most it keeps for one person, "
                "so this one is not saved. It stays on this device, in the list of practice matches below.",
                kept,
            )
            % {"count": kept}
        )


def _practice_steps(moves: int) -> float:
    """An upload's share of the budget: the work of saving it grows with its moves."""
    return max(1.0, settings.PRACTICE_UPLOAD_BURST * moves / PRACTICE_MAX_ACTIONS)


def practice_record(*, user, upload: object, address: str | None = None) -> tuple[Match, bool]:
    """Save a practice match played offline (the upload's JSON text, or the value it holds; see
    ``PracticeUpload``) to ``user``'s history once it replays through the engine to its end:
    (the match, True) when saved now, (the match, False) when this very match was saved before.
    ``PracticeRefused`` says what is wrong; ``PracticeThrottled`` when the person sends too many.

    What it costs the person, from a budget of ``settings.PRACTICE_UPLOAD_BURST`` steps refilled at
    ``PRACTICE_UPLOADS_PER_HOUR``: nothing for a match saved before (found by its digest, before any
    replay); for one replayed, a step, or its share of the burst for a long one (the longest allowed
    takes it whole); ``PRACTICE_REFUSED_UPLOAD_STEPS`` more for one refused, owed even with nothing
    left, and until the debt is paid every upload is refused unread. A person keeps at most
    ``PRACTICE_MATCHES_KEPT``. The browser's ``address`` (None when not from one) spends the same
    from a budget of its own (``PRACTICE_UPLOAD_ADDRESS_BURST``, ``PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR``),
    whatever its accounts. The replay runs before any transaction opens; saving is one durable
    transaction."""
    _practice_spend(user, address, 0)  # in debt for refused uploads: not even read
    with _refusal_charged(user, address):
        checked = _practice_upload(_practice_parsed(upload))
        digest = _practice_digest(user, checked)
    saved = Match.objects.filter(practice_digest=digest).first() if digest else None
    if saved is not None:
        return saved, False
    _practice_room(user)
    _practice_spend(user, address, _practice_steps(len(checked.actions)))
    with _refusal_charged(user, address):
        replayed, options = _practice_replayed(checked)
    try:
        return _practice_save(user, checked, options, replayed, digest), True
    except IntegrityError:  # the same upload, saved a moment ago by a second request
        return Match.objects.get(practice_digest=digest), False


@transaction.atomic(durable=True)
def _practice_save(user, upload: PracticeUpload, options: dict, replayed: Replayed, digest: str) -> Match:
    """The replayed practice match, written as a finished match at a closed table of its own. The
    person's row is held (``FOR NO KEY UPDATE``, which rows naming them may still be added beside)
    while their practice matches are counted, so two saves at once cannot both take the last place."""
    get_user_model().objects.select_for_update(no_key=True).get(pk=user.pk)
    _practice_room(user)
    game, moves = replayed.game, replayed.moves
    table = table_services.table_new_practice(
        host=user,
        game=upload.game,
        options=options,
        bot_levels=upload.bots,
        started_at=upload.started_at,
        finished_at=upload.finished_at,
    )
    match = Match.objects.create(
        table=table,
        game=upload.game,
        options=options,
        seed=upload.seed,
        state=game.state_to_json(replayed.state),
        version=len(moves),
        moves_made=len(moves),
        status=Match.Status.FINISHED,
        result=_result(moves[-1].round_over.public),  # the last move ended the match
        deal_events=next((move.dealt for move in reversed(moves) if move.dealt is not None), []),
        finished_at=upload.finished_at,
        turn_started_at=upload.finished_at,
        practice=True,
        practice_digest=digest,
    )
    Match.objects.filter(pk=match.pk).update(started_at=upload.started_at)  # not "now", as it was added
    match.started_at = upload.started_at
    Participant.objects.bulk_create(
        [Participant(match=match, seat=0, user=user, name=user.username)]
        + [Participant(match=match, seat=seat, bot_level=level) for seat, level in enumerate(upload.bots, 1)]
    )
    Move.objects.bulk_create(
        Move(
            match=match,
            seq=seq,
            seat=move.seat,
            action=move.action,
            events=move.events,
            actor=Move.Actor.PLAYER if move.seat == 0 else Move.Actor.BOT,
        )
        for seq, move in enumerate(moves, 1)
    )
    show = presenter(match.game)
    RoundResult.objects.bulk_create(
        RoundResult(match=match, number=ended.number, summary=show.round_summary(ended.public))
        for ended in (move.round_over for move in moves)
        if ended
    )
    return match
