"""One move, made the one way every table makes it: the server's ``act``, a replay of a record,
and the practice table in the browser all call ``step``, so they cannot drift apart.

A step reads the action's JSON form, applies it for the seat (the rules refuse it when it is
illegal or out of turn), and says whether it ended a round, a deal or the match, with the public
view then, which is what a score sheet records.
"""

from dataclasses import dataclass
from typing import Any

from .core import ActionJSON, Event, Game, IllegalAction, act, gettext_noop

ROUND_ENDS = frozenset({"round_over", "deal_over", "match_over"})
"""The events of a move that ended a round (Americana), a deal (classic) or the match."""

NOT_A_MOVE = gettext_noop("That is not a move of this game.")


class NotAMove(IllegalAction):
    """The JSON is no action of this game at all (not a legal action refused by the rules);
    ``reason`` says what is wrong with it, in English, for a replay's error."""

    def __init__(self, reason: str) -> None:
        super().__init__(NOT_A_MOVE)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class RoundOver:
    """A round (Americana) or deal (classic) that a move ended: its number and the public view then,
    which is what a score sheet records."""

    number: int
    public: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Step:
    seat: int
    action: ActionJSON
    """The action in the engine's own JSON form (what a record keeps)."""
    events: list[Event]
    """The move's public events."""
    round_over: RoundOver | None
    """Set when this move ended a round, a deal or the match."""


def step(game: Game, state: Any, seat: int, action_json: Any) -> Step:
    """Make the move ``action_json`` for ``seat`` on ``state`` (changed in place). Raises
    ``NotAMove`` for JSON that is no action of the game, ``IllegalAction`` for a move the rules
    refuse; either way ``state`` is unchanged."""
    try:
        action = game.action_from_json(action_json)
    except (ValueError, TypeError, AttributeError) as error:
        raise NotAMove(str(error)) from None
    events = act(game, state, seat, action)
    ended = game.is_over(state) or game.awaiting_deal(state)
    return Step(
        seat=seat,
        action=game.action_to_json(action),
        events=events,
        round_over=RoundOver(game.round_number(state), game.view(state, None)) if ended else None,
    )
