"""The rating model and who ranks where, without a database."""

import pytest

from ratings import ledger, model
from ratings.standing import standing


def test_a_newcomer_reads_1500_provisional():
    assert model.shown(model.MU) == 1500
    assert model.provisional(matches=0, sigma=model.SIGMA)
    assert model.provisional(matches=50, sigma=model.ESTABLISHED_SIGMA + 0.1)
    assert not model.provisional(matches=model.ESTABLISHED_MATCHES, sigma=model.ESTABLISHED_SIGMA)


def test_americana_ranks_the_lowest_total_first_and_equal_totals_share_a_place():
    result = {"totals": [40, 12, 40, 101], "left": []}
    assert standing("americana", {"players": 4}, result).places == [2, 1, 2, 4]


def test_a_person_who_left_ranks_below_everyone_who_stayed():
    result = {"totals": [5, 90, 101], "left": [0]}
    ranked = standing("americana", {"players": 3}, result)
    assert ranked.places == [3, 1, 2]
    assert ranked.left == [True, False, False]


@pytest.mark.parametrize(
    ("match_kind", "totals", "games", "places"),
    [("points8", [9, 7, 0], [1, 1, 0], [1, 2, 3]), ("games2", [9, 7, 8], [1, 2, 0], [2, 1, 3])],
)
def test_classic_ranks_by_the_match_s_own_score(match_kind, totals, games, places):
    result = {"totals": totals, "games_won": games, "left": []}
    assert standing("classic", {"players": 3, "match": match_kind}, result).places == places


def test_classic_four_players_rank_as_two_teams():
    result = {"totals": [8, 3], "games_won": [1, 0], "left": [3]}
    ranked = standing("classic", {"players": 4, "match": "points8"}, result)
    assert ranked.sides == [[0, 2], [1, 3]]
    assert ranked.places == [1, 2]
    # The team of a person who left ranks last even had it scored more.
    flipped = standing("classic", {"players": 4, "match": "points8"}, {**result, "left": [0]})
    assert flipped.places == [2, 1]


def test_partners_move_alike_whatever_their_uncertainty():
    entries = {
        1: ledger.Entry(mu=25, sigma=8.3),
        2: ledger.Entry(mu=30, sigma=2.0),
        3: ledger.Entry(),
        4: ledger.Entry(),
    }
    people = {0: 1, 1: 3, 2: 2, 3: 4}
    ranked = standing("classic", {"players": 4, "match": "points8"}, {"totals": [5, 3], "left": []})
    changes = {change.user_id: change for change in ledger.apply(entries, people, ranked, at=None)}
    assert changes[1].mu_after - changes[1].mu_before == pytest.approx(
        changes[2].mu_after - changes[2].mu_before
    )
    assert changes[1].change == changes[2].change > 0
    assert changes[3].change == changes[4].change < 0
    assert changes[1].sigma_after != changes[2].sigma_after  # each keeps their own uncertainty


def test_equal_players_tied_move_alike_and_the_winner_gains_what_the_loser_loses():
    entries = {user: ledger.Entry() for user in (1, 2, 3)}
    ranked = standing("americana", {"players": 3}, {"totals": [30, 30, 101], "left": []})
    changes = ledger.apply(entries, {0: 1, 1: 2, 2: 3}, ranked, at=None)
    assert changes[0].change == changes[1].change > 0 > changes[2].change
    duel = {user: ledger.Entry() for user in (1, 2)}
    won, lost = ledger.apply(
        duel, {0: 1, 1: 2}, standing("americana", {"players": 2}, {"totals": [3, 101]}), at=None
    )
    assert won.change == -lost.change > 0


def test_reversing_a_change_restores_the_rating_it_moved():
    entries = {1: ledger.Entry(), 2: ledger.Entry()}
    ranked = standing("americana", {"players": 2}, {"totals": [3, 101], "left": []})
    first, _second = ledger.apply(entries, {0: 1, 1: 2}, ranked, at=None)
    ledger.reverse(entries[1], first, [])
    assert entries[1].mu == pytest.approx(model.MU)
    assert entries[1].sigma == pytest.approx(model.SIGMA)
    assert entries[1].matches == 0 and entries[1].peak == 1500
