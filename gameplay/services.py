"""Every write to a match goes through here (DESIGN.md: one writer).

``act`` is the single door for moves, whoever makes them (a player's websocket
frame, a bot's task, a stand-in): one transaction, the match row locked, the
engine deciding, the snapshot and the move saved together, the version bumped,
and the table told after commit.
"""

import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from . import events
from .engine import IllegalAction, get_game
from .engine.core import Event
from .engine.core import act as engine_act
from .models import Match, Move, RoundResult

# What a score-sheet row keeps of the public view when a round (Americana) or deal (classic) ends.
ROUND_SUMMARY_KEYS = {
    "americana": ("round", "dealer", "out", "charges", "totals", "hands"),
    "classic": ("deal", "captured", "deal_points", "deal_winner", "totals", "games_won"),
}


class ActionRefused(Exception):
    """A move that was not made; ``str()`` says why, for the player who tried it."""

    def __init__(self, reason: str, *, stale: bool = False) -> None:
        super().__init__(reason)
        self.stale = stale


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
    return match


def _locked_playing(match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise ActionRefused("There is no such match.")
    if match.status != Match.Status.PLAYING:
        raise ActionRefused("The match is over.", stale=True)
    return match


def _save(match: Match, game, state, *, lobby: bool = False) -> None:
    match.state = game.state_to_json(state)
    match.version += 1
    match.save(update_fields=["state", "version", "status", "result", "finished_at"])
    events.table_changed(match.table_id, match.version, lobby=lobby)


@transaction.atomic
def act(
    *,
    match_id: int,
    seat: int,
    action: dict,
    actor: str = Move.Actor.PLAYER,
    expected_version: int | None = None,
) -> ActResult:
    """Make ``action`` (its JSON form) for ``seat``.

    ``expected_version`` is the version the mover saw; when the match has moved on
    since (a double click, a second tab, a late task) the move is refused as stale
    and nothing changes. An illegal move raises ``ActionRefused`` with the engine's
    reason and nothing is saved.
    """
    match = _locked_playing(match_id)
    if expected_version is not None and expected_version != match.version:
        raise ActionRefused("The table has moved on since; here is where it stands now.", stale=True)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    try:
        parsed = game.action_from_json(action)
    except (ValueError, TypeError, AttributeError):
        raise ActionRefused("That is not a move of this game.") from None
    try:
        happened = engine_act(game, state, seat, parsed)
    except IllegalAction as error:
        raise ActionRefused(str(error)) from None
    seq = match.moves.count() + 1
    Move.objects.create(match=match, seq=seq, seat=seat, action=game.action_to_json(parsed), actor=actor)
    finished_round = game.awaiting_deal(state) or game.is_over(state)
    if finished_round:
        _record_round(match, game, state)
    if game.is_over(state):
        _finish(match, game, state)
    _save(match, game, state, lobby=game.is_over(state))
    return ActResult(match_id=match.pk, version=match.version, events=happened)


def _record_round(match: Match, game, state) -> None:
    public = game.view(state, None)
    summary = {key: public[key] for key in ROUND_SUMMARY_KEYS[match.game]}
    RoundResult.objects.create(match=match, number=game.round_number(state), summary=summary)


def _finish(match: Match, game, state) -> None:
    """The match is decided: record the result and free the table for a rematch."""
    public = game.view(state, None)
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
    _save(match, game, state)
    return ActResult(match_id=match.pk, version=match.version, events=happened)


def match_state(match: Match):
    """The live engine state of a match, rebuilt from its snapshot."""
    return get_game(match.game).state_from_json(match.state)


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
