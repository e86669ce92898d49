"""The rules of RULES.md §2, each shown by a scenario file run through the command-line runner."""

import json

import pytest

from tests.engine.helpers import run_scenario, scenario_files

FILES = scenario_files("classic")


def test_there_are_scenarios():
    assert len(FILES) >= 6


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_scenario(path):
    """Every line named in "expect" holds at least the fields it lists, with those values."""
    scenario = json.loads(path.read_text(encoding="utf-8"))
    lines = run_scenario(scenario)
    assert len(lines) == len(scenario["actions"]) + 1
    for expected in scenario["expect"]:
        line = lines[expected["step"]]
        assert {key: line[key] for key in expected if key in line} == expected, line
