"""Information-set Monte Carlo: judge each legal action by playouts on sampled full positions.

The caller supplies ``sample`` (a full position consistent with what the seat knows, hidden
cards drawn at random) and ``evaluate`` (play one action on a copy of it to the end of the
round/deal, and say how good that was for the seat). Actions are compared on the same sampled
positions (a fairer duel than fresh deals each) and weeded out by successive halving, so most
playouts go to the actions that are close to the best.

The budget is spent by a cost model, not by the clock: the playout count depends only on the
inputs and the RNG, so a choice replays exactly (and the fair-play test can demand it).
"""

import math
import random
from collections.abc import Callable
from typing import Any, NamedTuple


class Cost(NamedTuple):
    """Seconds charged against the budget, calibrated on a server core (see the arena's timings)."""

    sample: float  # building one sampled position
    playout: float  # copying it, applying the action, scoring: the fixed part of one playout
    decision: float  # each decision the playout makes


class Search(NamedTuple):
    """One decision's search, as a game's ``search`` sets it up: the actions (the caller's legal ones,
    reordered so the preferred comes first), ``sample`` (a full position consistent with what the
    seat knows) and ``evaluate(position, index, rng)``: (score of playing action ``index`` on a copy
    of it to the end of the round or deal, decisions made)."""

    actions: list[dict]
    sample: Callable[[random.Random], Any]
    evaluate: Callable[[Any, int, random.Random], tuple[float, int]]
    cost: Cost


def best_action(found: Search, rng: random.Random, *, budget: float) -> int:
    """Index of the action (of ``found.actions``) with the best mean playout score.

    Each of the ceil(log2(count)) phases gets an equal share of the budget; in a phase every surviving
    action is played out once per sampled position, then the better half survives. Ties go to the
    lower index, so the caller's order breaks them.
    """
    count, cost = len(found.actions), found.cost
    totals = [0.0] * count
    plays = [0] * count
    alive = list(range(count))
    share = budget / max(1, math.ceil(math.log2(count)))
    while len(alive) > 1:
        spent = 0.0
        while spent < share:
            position = found.sample(rng)
            spent += cost.sample
            for index in alive:
                score, decisions = found.evaluate(position, index, rng)
                totals[index] += score
                plays[index] += 1
                spent += cost.playout + decisions * cost.decision
        alive.sort(key=lambda i: (-totals[i] / plays[i], i))
        alive = alive[: math.ceil(len(alive) / 2)]
    return alive[0]


def mean_scores(found: Search, rng: random.Random, *, positions: int) -> list[float]:
    """Every action's mean playout score over the same ``positions`` sampled positions, each action
    played out from a position with the same random source (common random numbers): the differences
    between actions, which a review reports, then vary far less than the scores themselves."""
    totals = [0.0] * len(found.actions)
    for _ in range(positions):
        position = found.sample(rng)
        seed = rng.getrandbits(64)
        for index in range(len(found.actions)):
            score, _decisions = found.evaluate(position, index, random.Random(seed))
            totals[index] += score
    return [total / positions for total in totals]
