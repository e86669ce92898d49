"""Every write to a match goes through here (DESIGN.md: one writer).

``act`` is the single door for moves, whoever makes them (a player's websocket
frame, a bot's task, a stand-in): one transaction, the match row locked, the
engine deciding, the snapshot and the move saved together, the version bumped,
and the table told after commit.
"""

import secrets
from dataclasses import dataclass, replace
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from tables.models import Seat, Table

from . import events, presence, reasons, scheduling
from .engine import IllegalAction, get_game
from .engine.core import Event, render_reason
from .engine.core import act as engine_act
from .models import Match, Move, RoundResult

# What a score-sheet row keeps of the public view when a round (Americana) or deal (classic) ends.
ROUND_SUMMARY_KEYS = {
    "americana": ("round", "dealer", "out", "charges", "totals", "hands"),
    "classic": ("deal", "captured", "deal_points", "deal_winner", "totals", "games_won"),
}


class ActionRefused(Exception):
    """A move that was not made. ``explain()`` says why in the active language; ``stale``
    marks a move made against a version the match has left (harmless: show the table anew)."""

    def __init__(self, template: str, params: dict | None = None, *, stale: bool = False) -> None:
        self.template = template
        self.params = params or {}
        self.stale = stale
        super().__init__(render_reason(template, self.params))

    def explain(self) -> str:
        return reasons.explain(self.template, self.params)


@dataclass(frozen=True)
class ActResult:
    match_id: int
    version: int
    events: list[Event]


def match_start(*, table) -> Match:
    """Deal a new match for ``table`` from a fresh seed.

    Call inside a transaction holding the table's row lock, once every seat is filled.
    """
    game = get_game(table.game)
    seed = secrets.randbits(63)
    state = game.new_match(game.options_from_json(table.options), seed)
    match = Match.objects.create(
        table=table,
        game=table.game,
        options=table.options,
        seed=seed,
        state=game.state_to_json(state),
    )
    events.table_changed(table.pk, match.version)
    _schedule(match, game, state)
    return match


def _seats(match: Match) -> dict[int, scheduling.SeatToAct]:
    """The match's seats by position: who holds each, whether a bot plays it, the turn clock."""
    rows = Seat.objects.filter(table_id=match.table_id).values_list(
        "position", "user_id", "bot_level", "is_taken_over", "table__turn_clock"
    )
    return {
        position: scheduling.SeatToAct(
            table_id=match.table_id,
            position=position,
            user_id=user_id,
            bot_plays=bool(bot_level) or taken_over,
            is_taken_over=taken_over,
            turn_clock=turn_clock,
        )
        for position, user_id, bot_level, taken_over, turn_clock in rows
    }


def _locked_playing(match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise ActionRefused(gettext_noop("There is no such match."))
    if match.status != Match.Status.PLAYING:
        raise ActionRefused(gettext_noop("The match is over."), stale=True)
    return match


def _save(
    match: Match,
    game,
    state,
    *,
    lobby: bool = False,
    match_only: bool = False,
    seats: dict[int, scheduling.SeatToAct] | None = None,
) -> None:
    """Store the new state, bump the version, and queue the broadcast and the follow-up.

    ``match_only``: nothing but the match changed (no seat, no table status), see ``events.table_changed``.
    ``seats``: the table's seats by position, when the caller has just read them.
    """
    match.state = game.state_to_json(state)
    match.version += 1
    match.turn_started_at = timezone.now()
    match.save(update_fields=["state", "version", "status", "result", "finished_at", "turn_started_at"])
    events.table_changed(match.table_id, match.version, lobby=lobby, match_only=match_only)
    _schedule(match, game, state, seats)


def _schedule(match: Match, game, state, seats: dict[int, scheduling.SeatToAct] | None = None) -> None:
    if match.status != Match.Status.PLAYING:
        return
    to_act = game.to_act(state)
    scheduling.after_change(
        match_id=match.pk,
        version=match.version,
        awaiting_deal=game.awaiting_deal(state),
        seat=None if to_act is None else (seats or _seats(match))[to_act],
    )


@transaction.atomic
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
    match = _locked_playing(match_id)
    if expected_version is not None and expected_version != match.version:
        raise ActionRefused(
            gettext_noop("The table has moved on since; here is where it stands now."), stale=True
        )
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
    seat_returned = reclaim and seats[seat].is_taken_over and _seat_return(match.table_id, seat)
    seq = match.moves.count() + 1
    Move.objects.create(
        match=match, seq=seq, seat=seat, action=game.action_to_json(parsed), events=happened, actor=actor
    )
    over = game.is_over(state)
    if over or game.awaiting_deal(state):
        public = game.view(state, None)
        _record_round(match, game.round_number(state), public)
        if over:
            _finish(match, public)
    if seat_returned:
        seats[seat] = replace(seats[seat], bot_plays=False, is_taken_over=False)
    _save(match, game, state, lobby=over, match_only=not (over or seat_returned), seats=seats)
    return ActResult(match_id=match.pk, version=match.version, events=happened)


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
    match.table.status = "finished"
    match.table.finished_at = match.finished_at
    match.table.save(update_fields=["status", "finished_at"])


@transaction.atomic
def round_deal_next(*, match_id: int, expected_version: int) -> ActResult | None:
    """Deal the next round once the finished one has been on show; stale calls do nothing."""
    try:
        match = _locked_playing(match_id)
    except ActionRefused:
        return None
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if match.version != expected_version or not game.awaiting_deal(state):
        return None
    happened = game.next_round(state)
    match.deal_events = happened
    match.save(update_fields=["deal_events"])
    _save(match, game, state, match_only=True)
    return ActResult(match_id=match.pk, version=match.version, events=happened)


def _seat_return(table_id: int, position: int) -> bool:
    """The player is back: a bot standing in for them leaves the seat. True when one did."""
    return bool(
        Seat.objects.filter(table_id=table_id, position=position, is_taken_over=True).update(
            is_taken_over=False, taken_over_at=None
        )
    )


@transaction.atomic
def seat_reclaim(*, match_id: int, seat: int) -> bool:
    """The player presses "I'm back": their seat is theirs again (the clock restarts if it is their turn)."""
    match = _locked_playing(match_id)
    if not _seat_return(match.table_id, seat):
        return False
    game = get_game(match.game)
    _save(match, game, game.state_from_json(match.state))
    return True


@transaction.atomic
def seat_stand_in(*, match_id: int, seat: int, expected_version: int, only_if_gone: bool = False) -> bool:
    """A bot stands in for a quiet player (clock run out, connection gone), visibly, until they return.

    Refused (False) when the match has moved on since the check was scheduled, or, with
    ``only_if_gone``, when the player has a connection open again.
    """
    try:
        match = _locked_playing(match_id)
    except ActionRefused:
        return False
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if match.version != expected_version or game.to_act(state) != seat:
        return False
    if only_if_gone and presence.connections(match.table_id, seat):
        return False
    updated = Seat.objects.filter(
        table_id=match.table_id, position=seat, user__isnull=False, is_taken_over=False
    ).update(is_taken_over=True, taken_over_at=timezone.now())
    if not updated:
        return False
    if not Seat.objects.filter(table_id=match.table_id, user__isnull=False, is_taken_over=False).exists():
        scheduling.deserted(match_id=match.pk)
    _save(match, game, state)
    return True


@transaction.atomic
def seat_connection_lost(*, table_id: int, seat: int) -> None:
    """The seat's last connection closed: if it is their turn, check again after the grace period."""
    match = Match.objects.filter(table_id=table_id, status=Match.Status.PLAYING).first()
    if match is None:
        return
    game = get_game(match.game)
    if game.to_act(game.state_from_json(match.state)) == seat:
        scheduling.player_gone(match_id=match.pk, seat=seat, version=match.version)


def match_abandon_if_deserted(*, match_id: int) -> bool:
    """Abandon a match whose every person has been stood in for by a bot for the whole wait."""
    match = Match.objects.filter(pk=match_id, status=Match.Status.PLAYING).first()
    if match is None:
        return False
    people = Seat.objects.filter(table_id=match.table_id, user__isnull=False)
    cutoff = timezone.now() - timedelta(seconds=scheduling.ABANDON_AFTER_SECONDS - 1)
    if not people.exists() or people.filter(Q(is_taken_over=False) | Q(taken_over_at__gt=cutoff)).exists():
        return False
    match_abort(match=match, reason=gettext_noop("Abandoned: every player was away for ten minutes."))
    Table.objects.filter(pk=match.table_id).update(status=Table.Status.CLOSED, finished_at=timezone.now())
    return True


@transaction.atomic
def match_abort(*, match: Match, reason: str) -> Match:
    """Stop a running match for good, recording why (a moderator, an abandoned table)."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.status != Match.Status.PLAYING:
        return match
    match.status = Match.Status.ABORTED
    match.abort_reason = reason
    match.finished_at = timezone.now()
    match.version += 1
    match.save(update_fields=["status", "abort_reason", "finished_at", "version"])
    events.table_changed(match.table_id, match.version)
    return match
