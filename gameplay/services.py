"""Every write to a match goes through here (DESIGN.md: one writer), and so does a match's lifecycle:
opening a table (its options are the game's), dealing when it fills, "Play now", a rematch, a
moderator closing a table or replacing a player mid-match, the periodic sweep.

``act`` is the single door for moves, whoever makes them (a player's websocket frame, a bot's task, a
stand-in): one transaction, the locks taken, the engine deciding, the snapshot and the move saved
together, the version bumped, and the table told after commit.

Locks, always in this order: **Table → Match → Seat** (``_lock_playing`` and ``tables.services``).
Rows: Match, Move, RoundResult, Participant and SeatChange are written here only; Table and Seat
only through ``tables.services``. Each public service is one durable transaction: the outermost
call, never half inside another; its events and tasks go out once it commits.
"""

import secrets
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from tables import events
from tables import services as table_services
from tables.models import Seat, Table
from tables.services import TableError

from . import presence, scheduling
from .engine import IllegalAction, get_game
from .engine.core import Event, render_reason
from .engine.core import act as engine_act
from .games import words
from .models import Match, Move, Participant, RoundResult, SeatChange

# What a score-sheet row keeps of the public view when a round (Americana) or deal (classic) ends.
ROUND_SUMMARY_KEYS = {
    "americana": ("round", "dealer", "out", "charges", "totals", "hands"),
    "classic": ("deal", "captured", "deal_points", "deal_winner", "totals", "games_won"),
}
PLAY_NOW_CLOCK = 45
SWEEP_SLACK_SECONDS = 1.0
"""How late past its deadline a match must be before the sweep steps in for the fast path's task."""


class ActionRefused(Exception):
    """A move that was not made. ``explain()`` says why in the active language; ``stale``
    marks a move made against a version the match has left (harmless: show the table anew)."""

    def __init__(self, template: str, params: dict | None = None, *, stale: bool = False) -> None:
        self.template = template
        self.params = params or {}
        self.stale = stale
        super().__init__(render_reason(template, self.params))

    def explain(self) -> str:
        return words.explain(self.template, self.params)


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
    *, host, game: str, options: dict, turn_clock: int, is_private: bool, fast_bots: bool = False
) -> Table:
    """A new table of ``game`` with the host in seat 0 and every other seat free."""
    return table_services.table_new(
        host=host,
        game=game,
        options=options_validate(game=game, options=options),
        turn_clock=turn_clock,
        is_private=is_private,
        fast_bots=fast_bots,
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


def _seats(match: Match) -> dict[int, scheduling.SeatToAct]:
    """The match's seats by position: who holds each, whether a bot plays it, the turn clock."""
    rows = Seat.objects.filter(table_id=match.table_id).values_list(
        "position", "user_id", "bot_level", "is_taken_over", "table__turn_clock", "table__fast_bots"
    )
    return {
        position: scheduling.SeatToAct(
            table_id=match.table_id,
            position=position,
            user_id=user_id,
            bot_plays=bool(bot_level) or taken_over,
            is_taken_over=taken_over,
            turn_clock=turn_clock,
            fast_bots=fast_bots,
        )
        for position, user_id, bot_level, taken_over, turn_clock, fast_bots in rows
    }


def _lock_playing(match_id: int) -> Match:
    """The running match, locked in the site's order: its table's row first, then the match's."""
    table = Table.objects.select_for_update(of=("self",)).filter(matches__id=match_id).only("pk").first()
    match = Match.objects.select_for_update().filter(pk=match_id).first() if table else None
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
    return plan, seat


SAVED_FIELDS = [
    "state",
    "version",
    "status",
    "result",
    "finished_at",
    "turn_started_at",
    "to_act",
    "due",
    "due_at",
]


def _save(
    match: Match,
    game,
    state,
    *,
    lobby: bool = False,
    match_only: bool = False,
    seats: dict[int, scheduling.SeatToAct] | None = None,
) -> None:
    """Store the new state, bump the version, note what is due, and queue the broadcast and the follow-up.

    ``match_only``: nothing but the match changed (no seat, no table status), see ``events.table_changed``.
    ``seats``: the table's seats by position, when the caller has just read them.
    """
    match.state = game.state_to_json(state)
    match.version += 1
    match.turn_started_at = timezone.now()
    plan, seat = _plan_next(match, game, state, seats)
    match.save(update_fields=SAVED_FIELDS)
    events.table_changed(match.table_id, match.version, lobby=lobby, match_only=match_only)
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)


def _moves_made(match: Match) -> int:
    return match.moves.count()


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
) -> ActResult:
    """Make ``action`` (its JSON form) for ``seat``.

    ``expected_version`` is the version the mover saw; when the match has moved on
    since (a double click, a second tab, a late task) the move is refused as stale
    and nothing changes. An illegal move raises ``ActionRefused`` with the engine's
    reason and nothing is saved. ``reclaim``: the mover is the seat's own player, so a
    bot standing in for them steps aside. ``user_id``: the person moving, refused unless
    the seat is theirs.
    """
    match = _locked_playing_at(match_id, expected_version)
    seats = _seats(match)
    if user_id is not None and (seat not in seats or seats[seat].user_id != user_id):
        raise ActionRefused(gettext_noop("You are watching this table: only its players can play."))
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    try:
        parsed = game.action_from_json(action)
    except (ValueError, TypeError, AttributeError):
        raise ActionRefused(gettext_noop("That is not a move of this game.")) from None
    try:
        happened = engine_act(game, state, seat, parsed)
    except IllegalAction as error:
        raise ActionRefused(error.template, error.params) from None
    seq = _moves_made(match) + 1
    seat_returned = reclaim and seats[seat].is_taken_over and _seat_back(match, seat, after_move=seq - 1)
    move = Move.objects.create(
        match=match, seq=seq, seat=seat, action=game.action_to_json(parsed), events=happened, actor=actor
    )
    over = game.is_over(state)
    round_ended = over or game.awaiting_deal(state)
    if round_ended:
        public = game.view(state, None)
        _record_round(match, game.round_number(state), public)
        if over:
            _finish(match, public)
    if seat_returned:
        seats[seat] = replace(seats[seat], bot_plays=False, is_taken_over=False)
    _save(match, game, state, lobby=over, match_only=not (over or seat_returned), seats=seats)
    if round_ended or seat_returned:
        return ActResult(match_id=match.pk, version=match.version, events=happened)
    return ActResult(
        match_id=match.pk, version=match.version, events=happened, match=match, state=state, move=move
    )


def _locked_playing_at(match_id: int, expected_version: int | None) -> Match:
    match = _lock_playing(match_id)
    if expected_version is not None and expected_version != match.version:
        raise ActionRefused(
            gettext_noop("The table has moved on since; here is where it stands now."), stale=True
        )
    return match


def _record_round(match: Match, number: int, public: dict) -> None:
    """One score-sheet row, from the public view of the round just finished."""
    summary = {key: public[key] for key in ROUND_SUMMARY_KEYS[match.game]}
    RoundResult.objects.create(match=match, number=number, summary=summary)


def _finish(match: Match, public: dict) -> None:
    """The match is decided: record the result and free the table for a rematch."""
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.result = {
        "winners": public["winners"],
        "losers": public.get("losers", []),
        "totals": public["totals"],
        "games_won": public.get("games_won"),
    }
    table_services.table_mark_finished(match.table_id, at=match.finished_at)


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
    match.deal_events = happened
    match.save(update_fields=["deal_events"])
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
    if not _seat_back(match, seat, after_move=_moves_made(match)):
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
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if game.to_act(state) != seat:
        return False
    if only_if_gone and not _gone(match.table_id, seat, match.turn_started_at):
        return False
    if not table_services.seat_stand_in(match.table_id, seat):
        return False
    SeatChange.objects.create(
        match=match, seat=seat, kind=SeatChange.Kind.STOOD_IN, after_move=_moves_made(match)
    )
    _save(match, game, state)
    return True


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
    if table.status not in (Table.Status.WAITING, Table.Status.PLAYING):
        raise TableError(_("This table's match is over."))
    match = Match.objects.select_for_update().filter(table=table, status=Match.Status.PLAYING).first()
    seat = table_services.seat_give_to_bot(table, position)
    if match is None:
        table_services.table_start_if_full(table)
        events.table_changed(table.pk)
        return seat
    moves = _moves_made(match)
    Participant.objects.filter(match=match, seat=position, until_move__isnull=True).update(until_move=moves)
    Participant.objects.create(match=match, seat=position, bot_level=seat.bot_level, from_move=moves)
    SeatChange.objects.create(match=match, seat=position, kind=SeatChange.Kind.REPLACED, after_move=moves)
    game = get_game(match.game)
    _save(match, game, game.state_from_json(match.state))
    return seat


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
    match.save(update_fields=["to_act", "due", "due_at"])
    if plan.due == Match.Due.BOT:
        plan = replace(plan, countdown=0.0)  # the bot has waited long enough already
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)


def sweep() -> int:
    """Act on every running match that is overdue, as its lost or late task would have; how many it
    acted on. Each step is the same idempotent service the task calls, so a sweep racing a task (or
    another sweep) makes one change, never two."""
    now = timezone.now()
    acted = 0
    overdue = Match.objects.filter(
        status=Match.Status.PLAYING, due_at__lt=now - timedelta(seconds=SWEEP_SLACK_SECONDS)
    ).values_list("pk", "version", "due", "to_act")
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
