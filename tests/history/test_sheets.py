"""Score sheets and replays of many bot-played matches agree with the engine's own result."""

import csv
import io

import pytest

from gameplay.engine import get_game
from history import selectors
from history.export import sheet_csv
from tests.factories import make_user
from tests.history.helpers import finished_match

CONFIGS = [
    ("americana", {"players": 2}),
    ("americana", {"players": 3, "jokers": True}),
    ("americana", {"players": 4, "jack_draws_two": True, "court_follows": True}),
    ("classic", {"players": 2}),
    ("classic", {"players": 3, "match": "games2"}),
    ("classic", {"players": 4, "match": "points21", "lead": "winner"}),
    ("classic", {"players": 2, "match": "games3"}),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("game", "options"), CONFIGS)
def test_the_score_sheet_adds_up_to_the_engines_result(db, game, options, seed):
    match = finished_match(game, [make_user("ana")], options, seed=seed)
    engine = get_game(game)
    final = engine.view(engine.state_from_json(match.state), None)
    sheet = selectors.score_sheet(match)

    assert final["match_over"]
    assert sheet.totals == final["totals"] == match.result["totals"]
    assert sheet.rows and [row.number for row in sheet.rows] == list(range(1, len(sheet.rows) + 1))
    running = [0] * len(sheet.sides)
    games = [0] * len(sheet.sides)
    for row in sheet.rows:
        running = [total + cell.value for total, cell in zip(running, row.cells, strict=True)]
        assert [cell.total for cell in row.cells] == running
        if game == "classic":
            games = [won + cell.won for won, cell in zip(games, row.cells, strict=True)]
            assert [cell.games_won for cell in row.cells] == games
            assert sum(cell.value for cell in row.cells) == 8  # every ten and ace, once
        else:
            assert sum(cell.went_out for cell in row.cells) <= 1
    assert running == final["totals"]
    if game == "classic":
        assert sheet.games_won == final["games_won"] == games
    else:
        target = options.get("target", 101)
        reached = [name for row in sheet.rows for name in row.reached]
        assert reached == [sheet.sides[seat] for seat, total in enumerate(final["totals"]) if total >= target]
        assert all(max(row.cells[s].total for s in range(len(row.cells))) < target for row in sheet.rows[:-1])

    winners = final["winners"]
    if winners:
        side = winners[0] % 2 if len(sheet.sides) != options["players"] else winners[0]
        assert sheet.result.startswith(sheet.sides[side])
    else:
        assert sheet.result == "No winner: the best totals are level."

    lines = list(csv.reader(io.StringIO(sheet_csv(sheet).lstrip("\ufeff"))))
    assert len(lines) == len(sheet.rows) + 3  # header, rows, totals, result
    per_side = 2 if game == "americana" else 3
    offset = 3 if game == "americana" else 2
    assert [int(lines[-2][offset + 1 + per_side * s]) for s in range(len(sheet.sides))] == final["totals"]

    last = selectors.replay_step(match, 10**9)
    assert last.public == final
    assert [seat.open_hand for seat in last.seats] == match.state["hands"]
