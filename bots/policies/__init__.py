"""Computer players for both games: one entry point, ``choose``.

A policy sees what the seat sees (``game.view(state, seat)``), the legal actions in their JSON
form and, optionally, the round's public events; never the state. It imports the engine and the
standard library only, so the same code runs in a Celery worker and, under Pyodide, in the
browser for offline practice. The choice is a function of its inputs and the RNG's state, so a
bot's move replays exactly.
"""

import random

from . import americana, classic
from .search import best_action

LEVELS = ("easy", "normal", "hard")
DEFAULT_BUDGET = 0.15
"""Seconds of search per hard decision on a server core (a cost model, not the clock)."""
TABLE_BUDGETS = {("americana", 3): 0.3}
"""Hard's budget where a game at a table size wants another than ``DEFAULT_BUDGET``, by (game,
players): three-player Americana, where twice the playouts win clearly more often (README's arena:
45.3% of 400 matches against 40.5%). At four players twice the playouts won no more (32.4% against
35.3%), so the default stands there."""

_GAMES = {"americana": americana, "classic": classic}


def choose(
    view: dict,
    legal: list[dict],
    level: str,
    rng: random.Random,
    *,
    history: list[dict] | None = None,
    budget: float | None = None,
) -> dict:
    """One of ``legal`` (the very dict) for the seat whose ``view`` is given.

    ``view``: ``game.view(state, seat)`` for the seat to act. ``legal``: the JSON form of
    ``game.legal_actions(state)``. ``history``: the public events (as ``apply``/``next_round``
    return them) of the match so far or of the current round/deal; only those after the last
    "dealt" event are used, and a history that does not agree with the view is ignored.
    ``budget``: seconds of search for "hard" (default: ``default_budget``).
    """
    if level not in LEVELS:
        raise ValueError(f"Unknown bot level {level!r}: expected one of {', '.join(LEVELS)}.")
    if not legal:
        raise ValueError("There is no legal action to choose from.")
    if view.get("to_act") != view.get("seat"):
        raise ValueError("The view is not of the seat to act.")
    module = _GAMES[view["game"]]
    if len(legal) == 1:
        return legal[0]
    if level == "easy":
        return module.easy(view, legal, rng)
    if level == "normal":
        return module.normal(view, legal, rng)
    # Hard: the game's search, its budget spent by successive halving on the closest actions.
    found = module.search(view, legal, rng, history)
    return found.actions[best_action(found, rng, budget=default_budget(view) if budget is None else budget)]


def default_budget(view: dict) -> float:
    """Hard's seconds of search at this seat's table: its game's and size's in ``TABLE_BUDGETS``,
    else ``DEFAULT_BUDGET``."""
    return TABLE_BUDGETS.get((view["game"], len(view["hand_counts"])), DEFAULT_BUDGET)
