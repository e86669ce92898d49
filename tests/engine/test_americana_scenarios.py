"""The rules of RULES.md §1 shown by scenario files, and the runner's contract for Americana."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gameplay.engine.script import MalformedScenario
from tests.engine.helpers import run_scenario, scenario_files
from tests.engine.test_americana_rules import deal

FILES = scenario_files("americana")
REPORT_KEYS = {
    "step",
    "ok",
    "round",
    "to_act",
    "legal",
    "hands",
    "stock_count",
    "pile_count",
    "top",
    "suit",
    "owed",
    "skip",
    "round_over",
    "charges",
    "totals",
    "match_over",
    "winners",
    "losers",
}


def test_there_are_scenarios():
    assert len(FILES) >= 12


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_scenario(path):
    """Every line named in "expect" holds the fields it lists; every other step was legal."""
    scenario = json.loads(path.read_text(encoding="utf-8"))
    lines = run_scenario(scenario)
    assert len(lines) == len(scenario["actions"]) + 1
    expected_by_step = {expected["step"]: expected for expected in scenario["expect"]}
    for line in lines:
        expected = expected_by_step.get(line["step"], {})
        assert {key: line[key] for key in expected if key in line} == expected, line
        if line["ok"]:
            assert set(line) == REPORT_KEYS
        else:
            assert expected.get("ok") is False, line


def test_a_seeded_scenario_prints_the_whole_report():
    lines = run_scenario({"game": "americana", "options": {"players": 2}, "seed": 3, "actions": []})
    (line,) = lines
    assert set(line) == REPORT_KEYS and line["round"] == 1 and line["charges"] is None
    assert (
        [len(hand) for hand in line["hands"]] == [5, 5]
        and line["stock_count"] == 41
        and line["pile_count"] == 1
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["stock"].pop(), "missing"),
        (lambda d: d["stock"].append("5H"), "more than once"),
        (lambda d: d["hands"].pop(), "list of 3 hands"),
        (lambda d: d.update(dealer=3), "dealer"),
        (lambda d: d.update(pile=[]), "top card"),
        (lambda d: d["hands"][0].append("XR"), "not in this deck"),
        (lambda d: d["hands"][0].append("1H"), "not a card code"),
        (lambda d: d.update(extra=1), "Unknown key"),
    ],
)
def test_a_deal_that_is_not_the_whole_deck_once_is_refused(change, message):
    table = deal([["9H", "3S"], ["8D", "6S"], ["KD", "10S"]], ["5H"])
    change(table)
    with pytest.raises(MalformedScenario, match=message):
        run_scenario({"game": "americana", "options": {"players": 3}, "deals": [table], "actions": []})


@pytest.mark.parametrize(
    "entry",
    [
        {"seat": 0, "type": "fly"},
        {"seat": 0, "type": "play"},
        {"seat": 0, "type": "play", "card": "9H", "suit": "S"},
        {"seat": 0, "type": "play", "card": "7H", "suit": "X"},
        {"seat": 0, "type": "draw", "card": "9H"},
        {"seat": "0", "type": "draw"},
    ],
)
def test_malformed_actions_are_refused(entry):
    with pytest.raises(MalformedScenario):
        run_scenario({"game": "americana", "options": {"players": 2}, "actions": [entry]})


def test_bad_options_are_refused():
    with pytest.raises(MalformedScenario, match="'players' must be 2, 3 or 4"):
        run_scenario({"game": "americana", "options": {"players": 5}, "actions": []})


def test_the_command_line_exits_2_on_malformed_input(tmp_path: Path):
    table = deal([["9H", "3S"], ["8D", "6S"], ["KD", "10S"]], ["5H"])
    table["stock"].pop()
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"game": "americana", "options": {"players": 3}, "deals": [table]}))
    result = subprocess.run(
        [sys.executable, "-m", "gameplay.engine.script", str(path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "The whole deck must be used; missing" in result.stderr


def test_the_command_line_runs_a_scenario_file():
    result = subprocess.run(
        [sys.executable, "-m", "gameplay.engine.script", str(FILES[0])],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines == run_scenario(json.loads(FILES[0].read_text(encoding="utf-8")))
