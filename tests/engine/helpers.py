"""Run scenario JSON through the same runner the command line uses; play whole matches with bots."""

import io
import json
import random
from pathlib import Path

from bots.policies import choose
from gameplay.engine import get_game
from gameplay.engine.script import run

SCENARIOS = Path(__file__).parent / "scenarios"


def run_scenario(scenario: dict) -> list[dict]:
    """Every line the runner prints for ``scenario``, parsed."""
    out = io.StringIO()
    run(scenario, out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def scenario_files(game: str) -> list[Path]:
    return sorted((SCENARIOS / game).glob("*.json"))


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
