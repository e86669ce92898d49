"""What every game object offers, and the one error a rule breach raises.

The server (``gameplay.services``), the bots, the scenario runner, the
benchmark and the offline practice page all talk to a game only through this
protocol, so the two games stay interchangeable everywhere above the engine.
"""

import json
import random
from typing import Any, Protocol

Event = dict[str, Any]
"""A public happening (``{"type": "played", "seat": 1, "card": "7S", "suit": "H"}``):
JSON-able, safe to show every seat, used for the log and for animation."""


class IllegalAction(ValueError):
    """An action the rules do not allow now; ``str(error)`` is a sentence for the player."""


class Game(Protocol):
    """A game's rules. States are plain mutable objects; ``apply`` changes them in place.

    Lifecycle: ``new_match`` deals round 1. After a round (Americana) or deal (classic)
    ends, ``awaiting_deal`` is true until ``next_round`` deals the next one, so every
    seat can look at the finished round first. ``is_over`` is true once the match ends.
    """

    name: str

    def options_from_json(self, data: dict) -> Any:
        """Validated table options; ``ValueError`` with a clear message when invalid."""
        ...

    def options_to_json(self, options: Any) -> dict: ...

    def new_match(self, options: Any, seed: int, deal: dict | None = None) -> Any:
        """A new match with round 1 dealt from the seed, or exactly as ``deal`` says
        (the scenario runner's deal JSON; ``ValueError`` when it is not a valid deal)."""
        ...

    def next_round(self, state: Any, deal: dict | None = None) -> list[Event]:
        """Deal the next round/deal; only while ``awaiting_deal(state)``."""
        ...

    def round_number(self, state: Any) -> int:
        """1-based number of the current (or just finished) round/deal."""
        ...

    def awaiting_deal(self, state: Any) -> bool: ...

    def is_over(self, state: Any) -> bool: ...

    def to_act(self, state: Any) -> int | None:
        """The seat whose decision it is, or None between rounds and after the match."""
        ...

    def legal_actions(self, state: Any) -> list[Any]:
        """Every action the seat to act may take now, in a stable order."""
        ...

    def apply(self, state: Any, action: Any) -> list[Event]:
        """Play ``action`` for the seat to act. Raises ``IllegalAction`` and changes
        nothing when the rules forbid it; otherwise returns the public events."""
        ...

    def view(self, state: Any, seat: int | None) -> dict:
        """Exactly what ``seat`` may know (None: a spectator); JSON-able."""
        ...

    def state_to_json(self, state: Any) -> dict: ...

    def state_from_json(self, data: dict) -> Any: ...

    def clone(self, state: Any) -> Any: ...

    def action_to_json(self, action: Any) -> dict: ...

    def action_from_json(self, data: dict) -> Any:
        """The action for its JSON form; ``ValueError`` when malformed."""
        ...

    def playout(self, state: Any, rng: random.Random, policy: str = "random") -> int:
        """Play the current round/deal to its end in place and return the decisions made.

        ``policy`` is "random" (uniform over legal actions) or "rollout" (a random
        playable card when there is one, otherwise another legal action). This is the
        path bots search with, so it may be a tuned fast path; tests check it agrees
        with ``legal_actions``/``apply``.
        """
        ...

    def scenario_report(self, state: Any) -> dict:
        """The fields the scenario runner prints for a state (see ``script``)."""
        ...


def act(game: Game, state: Any, seat: int, action: Any) -> list[Event]:
    """Apply ``action`` on behalf of ``seat``, refusing it when it is not that seat's turn."""
    if game.is_over(state):
        raise IllegalAction("The match is over.")
    if game.to_act(state) != seat:
        # A game may name the rule a move out of turn breaks ("Only the trick's winner takes it.").
        explain = getattr(game, "out_of_turn_reason", None)
        raise IllegalAction((explain and explain(state, seat, action)) or "It is not your turn.")
    return game.apply(state, action)


def sorted_action_json(game: Game, actions: list[Any]) -> list[dict]:
    """Actions in their JSON form, in the one stable order every tool prints them in."""
    return sorted((game.action_to_json(a) for a in actions), key=lambda a: json.dumps(a, sort_keys=True))
