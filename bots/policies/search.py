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


def best_action(
    count: int,
    sample: Callable[[random.Random], Any],
    evaluate: Callable[[Any, int, random.Random], tuple[float, int]],
    rng: random.Random,
    *,
    budget: float,
    cost: Cost,
) -> int:
    """Index of the action (of ``count``) with the best mean playout score.

    ``evaluate(position, index, rng)`` returns (score, decisions made). Each of the
    ceil(log2(count)) phases gets an equal share of the budget; in a phase every surviving
    action is played out once per sampled position, then the better half survives. Ties go
    to the lower index, so the caller's order breaks them.
    """
    totals = [0.0] * count
    plays = [0] * count
    alive = list(range(count))
    share = budget / max(1, math.ceil(math.log2(count)))
    while len(alive) > 1:
        spent = 0.0
        while spent < share:
            position = sample(rng)
            spent += cost.sample
            for index in alive:
                score, decisions = evaluate(position, index, rng)
                totals[index] += score
                plays[index] += 1
                spent += cost.playout + decisions * cost.decision
        alive.sort(key=lambda i: (-totals[i] / plays[i], i))
        alive = alive[: math.ceil(len(alive) / 2)]
    return alive[0]
