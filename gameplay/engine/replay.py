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
from .core import Event, Game, IllegalAction, Param, gettext_noop, render_reason
from .step import NotAMove, Step, step

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
class ReplayedMove(Step):
    dealt: list[Event] | None = None
    """The public events of the deal made just before this move, or None when there was none (the
    first deal is made by ``new_match``, which returns no events)."""


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
    for number, data in enumerate(actions, start=1):
        dealt = game.next_round(state) if game.awaiting_deal(state) else None
        seat = game.to_act(state)
        try:
            if seat is None:
                raise IllegalAction(gettext_noop("The match is over."))
            made = step(game, state, seat, data)
        except NotAMove as error:
            raise ReplayError(
                number, gettext_noop("Not an action of this game (%(reason)s)."), {"reason": error.reason}
            ) from None
        except IllegalAction as error:
            raise ReplayError(number, error.template, error.params) from None
        replayed.moves.append(ReplayedMove(made.seat, made.action, made.events, made.round_over, dealt))
    return replayed
