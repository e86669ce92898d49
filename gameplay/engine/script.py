"""The scenario runner: ``python -m gameplay.engine.script FILE`` (``-`` for stdin).

Reads one JSON object (game, options, seed, optional fixed deals, actions), plays
the actions through the engine and prints one JSON object per line: the state
before any action (step 0), then one line per action. An illegal action prints
``{"step", "ok": false, "error"}`` and changes nothing. Malformed input: a
message on stderr and exit code 2.
"""

import json
import sys
from typing import Any, TextIO

from . import get_game
from .core import IllegalAction, act


class MalformedScenario(ValueError):
    pass


def run(scenario: Any, out: TextIO) -> None:
    if not isinstance(scenario, dict):
        raise MalformedScenario("The scenario must be a JSON object.")
    try:
        game = get_game(scenario.get("game"))
        options = game.options_from_json(scenario.get("options", {}))
        seed = scenario.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"The seed must be an integer, got {seed!r}.")
        deals = scenario.get("deals", [])
        actions = scenario.get("actions", [])
        if not isinstance(deals, list) or not isinstance(actions, list):
            raise ValueError("'deals' and 'actions' must be lists.")
        state = game.new_match(options, seed, deals[0] if deals else None)
    except ValueError as error:
        raise MalformedScenario(str(error)) from error

    _emit(out, {"step": 0, "ok": True, **game.scenario_report(state)})
    for step, entry in enumerate(actions, start=1):
        try:
            if not isinstance(entry, dict):
                raise ValueError(f"Action {step} must be a JSON object.")
            seat = entry.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool):
                raise ValueError(f"Action {step} needs an integer 'seat'.")
            action = game.action_from_json({k: v for k, v in entry.items() if k != "seat"})
            if game.awaiting_deal(state) and not game.is_over(state):
                index = game.round_number(state)
                game.next_round(state, deals[index] if index < len(deals) else None)
        except ValueError as error:
            raise MalformedScenario(str(error)) from error
        try:
            act(game, state, seat, action)
        except IllegalAction as error:
            _emit(out, {"step": step, "ok": False, "error": str(error)})
            continue
        _emit(out, {"step": step, "ok": True, **game.scenario_report(state)})


def _emit(out: TextIO, line: dict) -> None:
    out.write(json.dumps(line, separators=(",", ":")) + "\n")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m gameplay.engine.script FILE  (or - for stdin)", file=sys.stderr)
        return 2
    try:
        if args[0] == "-":
            scenario = json.load(sys.stdin)
        else:
            with open(args[0], encoding="utf-8") as handle:
                scenario = json.load(handle)
        run(scenario, sys.stdout)
    except (OSError, json.JSONDecodeError, MalformedScenario) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
