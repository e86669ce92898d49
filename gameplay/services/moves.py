"""Moves: ``act``, the single door for every move whoever makes it (a player's websocket frame, a bot's
task, a stand-in), and dealing the next round. One transaction each: the locks taken, the engine
deciding, the snapshot and the move saved together, the version bumped, and the table told after
commit. A round's end writes its score-sheet row; the match's end, its result (the apps above hear of
it through ``signals.match_finished``)."""

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from observe import logs, metrics
from tables import services as table_services

from .. import presence, scheduling, signals
from ..engine import IllegalAction, get_game
from ..engine.core import Event
from ..engine.step import step as engine_step
from ..frames import ActionRefused
from ..games import presenter
from ..models import Match, Move, Participant, RoundResult
from . import store
from .seats import seat_back


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
        # Registered before the news (``store.save``): commit hooks run in order.
        transaction.on_commit(lambda: committed(result), robust=True)
    match = store.lock_playing_at(match_id, expected_version)
    seats = store.seats_to_act(match)
    if user_id is not None and (seat not in seats or seats[seat].user_id != user_id):
        raise ActionRefused(gettext_noop("You are watching this table: only its players can play."))
    if actor == Move.Actor.PLAYER and _own_pace_move_late(match, seats.get(seat), seat):
        raise ActionRefused(gettext_noop("The time for this move ran out: a bot plays it for you."))
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    try:
        made_step = engine_step(game, state, seat, action)
    except IllegalAction as error:  # a move the rules refuse, or no move at all (``NotAMove``)
        raise ActionRefused(error.template, error.params) from None
    happened = made_step.events
    made = match.moves_made
    seat_returned = reclaim and seats[seat].is_taken_over and seat_back(match, seat, after_move=made)
    match.moves_made = made + 1
    move = Move(
        match=match, seq=match.moves_made, seat=seat, action=made_step.action, events=happened, actor=actor
    )
    over = game.is_over(state)
    if actor == Move.Actor.TAKEOVER and seats[seat].pace_seconds and not over:
        # At own pace a bot stands in for the one move whose time ran out: the seat is its person's again
        # for the next, on a fresh clock (even when the same seat moves again, a trick taken and led).
        seat_returned = seat_back(match, seat, after_move=match.moves_made)
    if seat_returned:
        seats[seat] = replace(seats[seat], bot_plays=False, is_taken_over=False)
    if (ended := made_step.round_over) is not None:
        _record_round(match, ended.number, ended.public)
        if over:
            _finish(match, ended.public, seats)
    store.save(
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


def _own_pace_move_late(match: Match, seat: scheduling.SeatToAct | None, position: int) -> bool:
    """At own pace, a person's move for a turn whose time has run out: the sweep may not have reached it
    yet, or a bot already stands in; the bot's move stands either way."""
    if seat is None or not seat.pace_seconds or match.to_act != position:
        return False
    ran_out = match.due == Match.Due.PACE and match.due_at is not None and match.due_at <= timezone.now()
    return ran_out or seat.is_taken_over


def _broadcast_measured(game: str, started: float) -> None:
    """A move committed and its news out: counted, and how long it took from its start."""
    metrics.MOVES.labels(game=game).inc()
    metrics.MOVE_BROADCAST_SECONDS.observe(time.perf_counter() - started)


def _record_round(match: Match, number: int, public: dict) -> None:
    """One score-sheet row, from the public view of the round just finished."""
    RoundResult.objects.create(
        match=match, number=number, summary=presenter(match.game).round_summary(public)
    )


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
        or (
            seat.is_taken_over
            and not seat.pace_seconds  # away is how own pace is played: a late last move is not leaving
            and presence.away_seconds(match.table_id, position) is not None
        )
    )


def _finish(match: Match, public: dict, seats: dict[int, scheduling.SeatToAct]) -> None:
    """The match is decided: record the result and free the table for a rematch. The apps above
    (ratings) hear of it once it commits, before the table's news goes out (``signals``)."""
    match.status = Match.Status.FINISHED
    match.finished_at = timezone.now()
    match.result = store.result(public, _left(match, seats))
    table_services.table_mark_finished(match.table_id, at=match.finished_at)
    match_id = match.pk
    transaction.on_commit(lambda: signals.match_finished.send(sender=Match, match_id=match_id), robust=True)


@transaction.atomic(durable=True)
def round_deal_next(*, match_id: int, expected_version: int) -> ActResult | None:
    """Deal the next round once the finished one has been on show; stale calls do nothing."""
    try:
        match = store.lock_playing_at(match_id, expected_version)
    except ActionRefused:
        return None
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if not game.awaiting_deal(state):
        return None
    happened = game.next_round(state)
    match.deal_events, match.dealt_after_move = happened, match.moves_made
    match.save(update_fields=["deal_events", "dealt_after_move"])
    store.save(match, game, state, match_only=True)
    return ActResult(match_id=match.pk, version=match.version, events=happened)
