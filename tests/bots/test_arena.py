"""The arena at a size CI can afford: whole matches, both games, a report that adds up."""

import re

import pytest

from bots.arena import main, play_match, wilson


@pytest.mark.parametrize("game", ["americana", "classic"])
def test_a_small_arena_run_plays_whole_matches_and_reports(game, capsys):
    assert main(["--game", game, "--a", "hard", "--b", "easy", "--matches", "2", "--budget", "0.002"]) == 0
    out = capsys.readouterr().out
    won = re.search(r"A won (\d+), B won (\d+), no winner (\d+)", out)
    assert won and sum(map(int, won.groups())) == 2
    assert re.search(r"A's win rate among \d+ decided matches: [\d.]+% \(95% CI [\d.]+% to [\d.]+%\)", out)
    assert re.search(r"hard\s+median [\d.]+ s\s+p95 [\d.]+ s", out)
    assert re.search(r"easy\s+median [\d.]+ s\s+p95 [\d.]+ s", out)


def test_the_seats_swap_within_a_pair_of_matches_on_the_same_deal():
    first = play_match("classic", 2, ("normal", "normal"), 0, 5, None)
    second = play_match("classic", 2, ("normal", "normal"), 1, 5, None)
    # Same deals, same players, seats swapped: the same seat wins, so the other side does.
    assert first.winner is None or {first.winner, second.winner} == {"a", "b"}


def test_wilson_interval():
    low, high = wilson(60, 100)
    assert (round(low, 3), round(high, 3)) == (0.502, 0.691)
    assert wilson(0, 0) == (0.0, 1.0)
