"""Run scenario JSON through the same runner the command line uses."""

import io
import json
from pathlib import Path

from gameplay.engine.script import run

SCENARIOS = Path(__file__).parent / "scenarios"


def run_scenario(scenario: dict) -> list[dict]:
    """Every line the runner prints for ``scenario``, parsed."""
    out = io.StringIO()
    run(scenario, out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def scenario_files(game: str) -> list[Path]:
    return sorted((SCENARIOS / game).glob("*.json"))
