"""Bots against bots: ``python -m bots.arena --game americana --players 2 --a hard --b normal``.

Whole matches with the table's default options on the engine alone (no Django). Matches come in
rounds on the same deal seed with the seats moved, so the deal's and the seat's luck cancel out:

- ``alternate`` (the default): level A at the even seats in the first match of a pair, at the odd
  ones in the second (at three players, two seats and then one);
- ``one``: one seat of level A against the rest at level B, A at each seat in turn, one match per
  seat on the same deal: how a single bot of a level fares at a full table;
- ``teams``: classic at four, A's pair against B's (partners sit across: the alternate seating).

Prints A's win rate among decided matches with a 95% Wilson interval and A's share were the levels
equal, the matches with no winner, and how long each level took per decision (only decisions with
a real choice: more than one legal action).
"""

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from gameplay.engine import GAME_NAMES, get_game

from .policies import LEVELS, choose


@dataclass
class Outcome:
    """One match: who won (``"a"``, ``"b"`` or None) and each level's decision times in seconds."""

    winner: str | None
    times: dict[str, list[float]] = field(default_factory=dict)


MODES = ("alternate", "one", "teams")


def seating(mode: str, players: int, index: int) -> tuple[int, list[str]]:
    """Match ``index``'s round (the matches on one deal seed) and each seat's side, ``"a"`` or ``"b"``."""
    if mode == "one":
        return index // players, ["a" if seat == index % players else "b" for seat in range(players)]
    return index // 2, ["ab"[(seat + index) % 2] for seat in range(players)]


def share(mode: str, players: int) -> float:
    """A's share of the wins were the two levels equally strong."""
    return 1 / players if mode == "one" else 0.5


def play_match(
    game_name: str,
    players: int,
    levels: tuple[str, str],
    index: int,
    seed: int,
    budget: float | None,
    mode: str = "alternate",
) -> Outcome:
    """Play match ``index`` of a run, seated as ``mode`` says (``seating``)."""
    game = get_game(game_name)
    deal, side_of = seating(mode, players, index)
    state = game.new_match(game.options_from_json({"players": players}), seed + deal)
    rngs = [random.Random(f"{seed}:{index}:{seat}") for seat in range(players)]
    times: dict[str, list[float]] = {level: [] for level in levels}
    seat_levels = [levels[side == "b"] for side in side_of]
    play_through(game, state, seat_levels, rngs, budget=budget, times=times)
    winners = game.view(state, None)["winners"]
    return Outcome(side_of[winners[0]] if winners else None, times)


def play_through(
    game,
    state,
    levels: list[str],
    rngs: list[random.Random],
    *,
    budget: float | None,
    times: dict[str, list[float]] | None = None,
) -> list[dict]:
    """Play ``state`` to the match's end, each seat choosing at its level with its own random source,
    dealing between rounds as the table does; ``times``: each level's decision times (choices between
    two or more actions only) are added to it. Every action played, in order (a match's record)."""
    history: list[dict] = []
    played: list[dict] = []
    while not game.is_over(state):
        if game.awaiting_deal(state):
            history = game.next_round(state)
            continue
        seat = game.to_act(state)
        legal = [game.action_to_json(a) for a in game.legal_actions(state)]
        started = time.perf_counter()
        action = choose(
            game.view(state, seat), legal, levels[seat], rngs[seat], history=history, budget=budget
        )
        if times is not None and len(legal) > 1:
            times[levels[seat]].append(time.perf_counter() - started)
        history += game.apply(state, game.action_from_json(action))
        played.append(action)
    return played


def bot_played_actions(game_name: str, options: dict, seed: int, levels: list[str]) -> list[dict]:
    """Every action of a whole match played by bots of ``levels`` (one per seat), dealing between
    rounds as the table does: the action list an offline practice match saves."""
    game = get_game(game_name)
    state = game.new_match(game.options_from_json(options), seed)
    rng = random.Random(seed)
    actions = []
    while not game.is_over(state):
        if game.awaiting_deal(state):
            game.next_round(state)
            continue
        seat = game.to_act(state)
        legal = [game.action_to_json(action) for action in game.legal_actions(state)]
        action = choose(game.view(state, seat), legal, levels[seat], rng)
        game.apply(state, game.action_from_json(action))
        actions.append(action)
    return actions


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion: sound at small n and near 0 or 1."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def report(args: argparse.Namespace, outcomes: list[Outcome], elapsed: float) -> str:
    a_wins = sum(o.winner == "a" for o in outcomes)
    b_wins = sum(o.winner == "b" for o in outcomes)
    decided = a_wins + b_wins
    low, high = wilson(a_wins, decided)
    rate = a_wins / decided if decided else 0.0
    lines = [
        f"{args.game}, {args.players} players, {args.mode}, {len(outcomes)} matches (seed {args.seed}), "
        f"A = {args.a}, B = {args.b}, budget {args.budget if args.budget is not None else 'default'}",
        f"A won {a_wins}, B won {b_wins}, no winner {len(outcomes) - decided}",
        f"A's win rate among {decided} decided matches: {rate:.1%} (95% CI {low:.1%} to {high:.1%}); "
        f"equal levels: {share(args.mode, args.players):.1%}",
        "decision time (choices between two or more actions):",
    ]
    for level in dict.fromkeys((args.a, args.b)):
        times = sorted(t for o in outcomes for t in o.times.get(level, ()))
        if times:
            p95 = times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)]
            lines.append(
                f"  {level:6}  median {statistics.median(times):.4f} s  p95 {p95:.4f} s"
                f"  max {times[-1]:.4f} s  ({len(times)} decisions)"
            )
    lines.append(f"wall time {elapsed:.1f} s")
    return "\n".join(lines)


class _InProcess:
    """A stand-in for the process pool when one job is asked for: same interface, no processes."""

    def __enter__(self) -> "_InProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    map = staticmethod(map)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.arena", description=__doc__)
    parser.add_argument("--game", choices=GAME_NAMES, default="americana")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--a", choices=LEVELS, default="hard")
    parser.add_argument("--b", choices=LEVELS, default="normal")
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=None, help="hard's seconds per decision")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing matches side by side")
    parser.add_argument("--mode", choices=MODES, default="alternate", help="how the levels are seated")
    args = parser.parse_args(argv)
    if args.mode == "teams" and not (args.game == "classic" and args.players == 4):
        parser.error("--mode teams: only classic at four players is played in pairs")
    started = time.perf_counter()
    jobs = [
        (args.game, args.players, (args.a, args.b), index, args.seed, args.budget, args.mode)
        for index in range(args.matches)
    ]
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(args.jobs) if args.jobs > 1 else _InProcess() as pool:
        for outcome in pool.map(play_match, *zip(*jobs, strict=True)):
            outcomes.append(outcome)
            if len(outcomes) % max(1, args.matches // 10) == 0:
                print(f"{len(outcomes)}/{args.matches} matches", file=sys.stderr, flush=True)
    print(report(args, outcomes, time.perf_counter() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
