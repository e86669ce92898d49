"""The arena at a size CI can afford: whole matches, both games, a report that adds up."""

import re

import pytest

from bots.arena import main, play_match, seating, share, wilson


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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_one_against_the_rest_puts_level_a_at_each_seat_once_per_deal(players):
    rounds = [seating("one", players, index) for index in range(2 * players)]
    for deal in (0, 1):
        on_deal = [sides for number, sides in rounds if number == deal]
        assert len(on_deal) == players
        assert all(sides.count("a") == 1 for sides in on_deal)
        assert sorted(sides.index("a") for sides in on_deal) == list(range(players))
    assert share("one", players) == pytest.approx(1 / players)


def test_teams_seat_classic_s_pairs_against_each_other():
    for index in range(4):
        deal, sides = seating("teams", 4, index)
        assert deal == index // 2
        assert sides[0] == sides[2] != sides[1] == sides[3]  # partners sit across


def test_a_small_run_of_one_against_the_rest_adds_up_and_names_the_share_to_beat(capsys):
    assert main(["--players", "3", "--mode", "one", "--a", "easy", "--b", "easy", "--matches", "6"]) == 0
    out = capsys.readouterr().out
    assert "3 players, one, 6 matches" in out
    assert "equal levels: 33.3%" in out
    won = re.search(r"A won (\d+), B won (\d+), no winner (\d+)", out)
    assert won and sum(map(int, won.groups())) == 6


def test_teams_are_only_classic_at_four():
    with pytest.raises(SystemExit):
        main(["--game", "americana", "--players", "4", "--mode", "teams", "--matches", "2"])
