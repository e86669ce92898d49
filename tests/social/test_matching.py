"""The pool's grouping, as plain functions: closest ratings first, windows widening with the wait,
blocks kept apart, bots for those who waited long enough."""

from social.matching import Waiting, Window, bot_fills, groups

WINDOW = Window(start=100, per_second=25)


def person(entry: int, rating: int, waited: float = 0.0, bots: bool = False) -> Waiting:
    return Waiting(entry=entry, user=entry, rating=rating, waited=waited, fill_with_bots=bots)


def entries(made) -> list[list[int]]:
    return [sorted(member.entry for member in group) for group in made]


def test_the_closest_ratings_sit_together_first():
    pool = [person(1, 1500), person(2, 1900), person(3, 1530), person(4, 1880)]
    assert sorted(entries(groups(pool, 2, WINDOW))) == [[1, 3], [2, 4]]


def test_a_distant_rating_waits_until_the_window_has_widened_enough():
    pool = [person(1, 1500, waited=1), person(2, 1800, waited=1)]
    assert groups(pool, 2, WINDOW) == []
    # 300 apart: both windows must reach 300, which takes 8 s at 25 points a second from 100.
    pool = [person(1, 1500, waited=8), person(2, 1800, waited=8)]
    assert entries(groups(pool, 2, WINDOW)) == [[1, 2]]
    # The newcomer's own window is still narrow: they do not accept the gap yet.
    pool = [person(1, 1500, waited=30), person(2, 1800, waited=0)]
    assert groups(pool, 2, WINDOW) == []


def test_people_of_whom_one_blocked_the_other_never_sit_together():
    pool = [person(1, 1500), person(2, 1510), person(3, 1520)]
    made = groups(pool, 2, WINDOW, {frozenset((1, 2))})
    assert entries(made) == [[1, 3]] or entries(made) == [[2, 3]]
    assert all({1, 2} - {member.entry for member in group} for group in made)
    assert groups([person(1, 1500), person(2, 1500)], 2, WINDOW, {frozenset((1, 2))}) == []


def test_a_full_table_needs_as_many_people_as_seats_and_seats_each_once():
    pool = [person(entry, 1500 + entry) for entry in range(1, 8)]
    made = groups(pool, 3, WINDOW)
    assert len(made) == 2
    seated = [member.entry for group in made for member in group]
    assert len(seated) == len(set(seated)) == 6


def test_bots_complete_a_table_for_whoever_waited_long_enough_with_the_fill_on():
    pool = [
        person(1, 1500, waited=21, bots=True),
        person(2, 2400, waited=3, bots=True),
        person(3, 1500, waited=30),
    ]
    made = bot_fills(pool, 4, after=20)
    # Entry 3 waited longer but did not accept bots; 2 did and joins 1 whatever their ratings.
    assert entries(made) == [[1, 2]]
    assert bot_fills(pool, 4, after=40) == []
