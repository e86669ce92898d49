"""A match replayed from (game, options, seed, actions), as DESIGN.md promises a match replays.

The server checks an uploaded practice match with it, and the browser resumes a practice match
from its saved actions with the very same function, so both deal and refuse alike. The actions are
every seat's, in order; deals are not among them: whenever the engine awaits a deal, the next
round is dealt before the next action, exactly as the table does.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import GAME_NAMES, get_game
from .core import ActionJSON, Event, Game, IllegalAction, Param, act, gettext_noop, render_reason

MAX_SEED = 2**63 - 1
"""Seeds are kept in a signed 64-bit column."""


class ReplayError(ValueError):
    """The record does not replay. ``step`` is the 1-based number of the action that failed, or 0
    when the match cannot even start (the game, options or seed). ``template`` and ``params`` say why,
    as ``IllegalAction`` does, so an interface can say it in the reader's language; ``str(error)``
    is the English, step included."""

    def __init__(self, step: int, template: str, params: Mapping[str, Param] | None = None) -> None:
        self.step = step
        self.template = template
        self.params = dict(params or {})
        reason = render_reason(template, self.params)
        super().__init__(f"Action {step}: {reason}" if step else reason)


@dataclass(frozen=True, slots=True)
class RoundOver:
    """A round (Americana) or deal (classic) that a move ended: its number and the public view then,
    which is what a score sheet records."""

    number: int
    public: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ReplayedMove:
    seat: int
    action: ActionJSON
    """The action in the engine's own JSON form."""
    events: list[Event]
    dealt: list[Event] | None
    """The public events of the deal made just before this move, or None when there was none (the
    first deal is made by ``new_match``, which returns no events)."""
    round_over: RoundOver | None
    """Set when this move ended a round, a deal or the match."""


@dataclass(slots=True)
class Replayed:
    game: Game
    state: Any
    """The state after the last action (a deal still awaited is not made)."""
    moves: list[ReplayedMove] = field(default_factory=list)


def replay(game_name: str, options_json: object, seed: object, actions: Sequence[object]) -> Replayed:
    """Play ``actions`` (their JSON form, every seat's, in order) from a new match of ``game_name``
    with ``options_json`` and ``seed``; ``ReplayError`` naming the first step that does not replay."""
    if game_name not in GAME_NAMES:
        raise ReplayError(0, gettext_noop("Unknown game: %(game)s."), {"game": repr(game_name)})
    game = get_game(game_name)
    try:
        options = game.options_from_json(options_json)
    except ValueError as error:
        raise ReplayError(
            0, gettext_noop("These options are not valid: %(reason)s"), {"reason": str(error)}
        ) from None
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        raise ReplayError(0, gettext_noop("The seed must be a whole number from 0 to 2⁶³ − 1."))
    state = game.new_match(options, seed)
    replayed = Replayed(game=game, state=state)
    for step, data in enumerate(actions, start=1):
        dealt = game.next_round(state) if game.awaiting_deal(state) else None
        try:
            action = game.action_from_json(data)
        except (ValueError, TypeError) as error:
            raise ReplayError(
                step, gettext_noop("Not an action of this game (%(reason)s)."), {"reason": str(error)}
            ) from None
        seat = game.to_act(state)
        try:
            if seat is None:
                raise IllegalAction(gettext_noop("The match is over."))
            events = act(game, state, seat, action)
        except IllegalAction as error:
            raise ReplayError(step, error.template, error.params) from None
        ended = game.is_over(state) or game.awaiting_deal(state)
        replayed.moves.append(
            ReplayedMove(
                seat=seat,
                action=game.action_to_json(action),
                events=events,
                dealt=dealt,
                round_over=RoundOver(game.round_number(state), game.view(state, None)) if ended else None,
            )
        )
    return replayed
