"""Engine speed: ``python -m gameplay.engine.bench [--json] [--seconds S]``.

For each game and player count it measures, on one core:
- decisions per second under uniformly random play (legal-action generation,
  choice and apply, through the game's playout path);
- complete rounds (Americana, rollout policy: a random playable card when the
  player holds one) or complete deals (classic, uniformly random) per second,
  each from a freshly dealt match.
Numbers, not assertions: the machine is shared and noisy.
"""

import argparse
import json
import random
import sys
import time

from . import get_game

# Per game: the JSON key for whole rounds/deals and the policy those are timed with.
UNITS = {"americana": ("rounds_per_s", "rollout"), "classic": ("deals_per_s", "random")}
PLAYERS = (4, 3, 2)


def _measure(game_name: str, players: int, policy: str, seconds: float) -> tuple[float, float]:
    """(decisions per second, rounds per second) playing fresh rounds for ``seconds``."""
    game = get_game(game_name)
    options = game.options_from_json({"players": players})
    rng = random.Random(players)
    decisions = rounds = 0
    elapsed = 0.0
    seed = 0
    while elapsed < seconds:
        seed += 1
        started = time.perf_counter()
        state = game.new_match(options, seed)
        decisions += game.playout(state, rng, policy)
        elapsed += time.perf_counter() - started
        rounds += 1
    return decisions / elapsed, rounds / elapsed


def measure(seconds: float = 2.0) -> dict:
    results: dict = {}
    for game_name, (unit_key, unit_policy) in UNITS.items():
        per_players = results[game_name] = {}
        for players in PLAYERS:
            decisions_per_s, _ = _measure(game_name, players, "random", seconds)
            _, units_per_s = _measure(game_name, players, unit_policy, seconds)
            per_players[str(players)] = {
                "decisions_per_s": round(decisions_per_s),
                unit_key: round(units_per_s),
            }
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gameplay.engine.bench", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args(argv)
    results = measure(args.seconds)
    if args.json:
        print(json.dumps(results))
        return 0
    for game_name, per_players in results.items():
        unit_key = UNITS[game_name][0]
        for players, numbers in per_players.items():
            print(
                f"{game_name:9} {players} players: "
                f"{numbers['decisions_per_s']:>9,} decisions/s  "
                f"{numbers[unit_key]:>7,} {unit_key.removesuffix('_per_s')}/s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
