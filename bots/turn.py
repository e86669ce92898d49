"""A bot's move at a table, taken the one way by the server's bot task and the practice table.

The policy is handed the seat's view and legal actions only (``bots.policies.choose``), never the
state, and its randomness is seeded by the match's seed and version, so a bot's move replays
exactly wherever the match is played.
"""

import random
import time
from dataclasses import dataclass
from typing import Any

from gameplay.engine.core import Event, Game

from . import policies


@dataclass(frozen=True, slots=True)
class Decision:
    action: dict
    """One of the seat's legal actions, in its JSON form."""
    seconds: float
    """How long the policy took to choose."""


def decide(
    game: Game, state: Any, seat: int, level: str, *, seed: int, version: int, history: list[Event]
) -> Decision:
    """The move of the bot of ``level`` at ``seat`` (the seat to act); ``history``: the public
    events of the round being played, its deal first, which the hard bot reads."""
    view = game.view(state, seat)
    legal = [game.action_to_json(action) for action in game.legal_actions(state)]
    rng = random.Random(f"{seed}:{version}")
    started = time.perf_counter()
    action = policies.choose(view, legal, level, rng, history=history)
    return Decision(action=action, seconds=time.perf_counter() - started)
