"""The tournaments' arithmetic: points, the streak, arena tables, Swiss rounds and tie-breaks."""

import random
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.arithmetic import (
    BYE_POINTS,
    PLACE_POINTS,
    WIN_POINTS,
    Standee,
    SwissPlayer,
    TableResult,
    Waiting,
    arena_tables,
    on_fire,
    place_points,
    podium,
    score,
    standings,
    swiss_round,
    won,
)

# --- points ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("places", "points"),
    [
        ([1, 2], [2, 0]),
        ([2, 1], [0, 2]),
        ([1, 1], [1, 1]),
        ([1, 2, 3], [2, 1, 0]),
        ([3, 1, 2], [0, 2, 1]),
        ([1, 1, 3], [2, 2, 0]),  # (2 + 1) / 2 = 1.5, half up
        ([1, 2, 2], [2, 1, 1]),  # (1 + 0) / 2 = 0.5, half up
        ([1, 1, 1], [1, 1, 1]),
        ([1, 2, 3, 4], [2, 1, 1, 0]),
        ([4, 3, 2, 1], [0, 1, 1, 2]),
        ([1, 1, 3, 4], [2, 2, 1, 0]),  # (2 + 1) / 2 = 1.5
        ([1, 2, 2, 4], [2, 1, 1, 0]),
        ([1, 2, 3, 3], [2, 1, 1, 1]),  # (1 + 0) / 2 = 0.5
        ([1, 1, 1, 1], [1, 1, 1, 1]),
        ([1, 1, 2], [2, 2, 0]),  # a dense numbering reads as the competition one
    ],
)
def test_place_points(places: list[int], points: list[int]) -> None:
    assert place_points(places) == points


def test_a_win_is_worth_the_same_at_every_size() -> None:
    for sides, table in PLACE_POINTS.items():
        assert table[0] == WIN_POINTS
        assert sum(table) == sides


def test_only_first_place_alone_wins() -> None:
    assert won([1, 2], 0)
    assert not won([1, 2], 1)
    assert not won([1, 1], 0)
    assert won([2, 1, 3], 1)
    assert not won([1, 1, 3, 4], 0)


def test_two_wins_in_a_row_then_wins_count_double() -> None:
    first = score(2, won=True, streak=0)
    second = score(2, won=True, streak=first.streak)
    third = score(2, won=True, streak=second.streak)
    fourth = score(2, won=True, streak=third.streak)
    assert [first.points, second.points, third.points, fourth.points] == [2, 2, 4, 4]
    assert [first.doubled, second.doubled, third.doubled] == [False, False, True]
    assert fourth.streak == 4
    assert not on_fire(1)
    assert on_fire(2)


def test_a_level_result_ends_the_streak_and_is_not_doubled() -> None:
    level = score(1, won=False, streak=3)
    assert (level.points, level.streak, level.doubled) == (1, 0, False)
    assert score(2, won=True, streak=level.streak).points == 2


def test_a_loss_ends_the_streak() -> None:
    lost = score(0, won=False, streak=5)
    assert (lost.points, lost.streak, lost.doubled) == (0, 0, False)


# --- arena ----------------------------------------------------------------------------------------


def waiting(user: int, rank: int, *, waited: float = 10.0, last: tuple[int, ...] = ()) -> Waiting:
    return Waiting(user=user, rank=rank, waited=waited, last_opponents=frozenset(last))


def crowd(count: int, *, met: tuple[int, ...] = ()) -> list[Waiting]:
    """Users 100, 101, ... at ranks 0, 1, ...; those in ``met`` were at one table last time."""
    people = [100 + rank for rank in range(count)]
    return [
        waiting(user, rank, last=tuple(other for other in met if other != user) if user in met else ())
        for rank, user in enumerate(people)
    ]


def together(tables: list[list[int]], first: int, second: int) -> bool:
    return any(first in table and second in table for table in tables)


def test_two_seats_pair_the_nearest_ranks() -> None:
    people = [waiting(7, 5), waiting(3, 0), waiting(9, 1), waiting(4, 9), waiting(8, 4), waiting(2, 8)]
    assert arena_tables(people, 2) == [[3, 9], [8, 7], [2, 4]]


def test_two_seats_avoid_a_repeat_when_someone_else_is_there() -> None:
    tables = arena_tables(crowd(4, met=(100, 101)), 2)
    assert len(tables) == 2
    assert not together(tables, 100, 101)


def test_two_seats_keep_a_repeat_when_nobody_else_is_there() -> None:
    assert arena_tables(crowd(2, met=(100, 101)), 2) == [[100, 101]]


def test_two_seats_never_seat_a_block() -> None:
    assert arena_tables(crowd(2), 2, apart=frozenset({frozenset({100, 101})})) == []
    tables = arena_tables(crowd(4), 2, apart=frozenset({frozenset({100, 101}), frozenset({102, 103})}))
    assert sorted(map(sorted, tables)) == [[100, 102], [101, 103]]


def test_the_one_who_waited_least_is_left_for_the_next_pairing() -> None:
    people = [waiting(1, 0, waited=30), waiting(2, 1, waited=2), waiting(3, 2, waited=40)]
    assert arena_tables(people, 2) == [[1, 3]]


@pytest.mark.parametrize("size", [3, 4])
def test_more_seats_group_the_nearest_ranks(size: int) -> None:
    people = crowd(3 * size)
    random.Random(size).shuffle(people)
    assert arena_tables(people, size) == [
        [100 + rank for rank in range(start, start + size)] for start in range(0, 3 * size, size)
    ]


@pytest.mark.parametrize("size", [3, 4])
def test_more_seats_avoid_repeats_where_the_crowd_allows(size: int) -> None:
    last_table = tuple(range(100, 100 + size))
    tables = arena_tables(crowd(size * size, met=last_table), size)
    assert len(tables) == size
    assert not any(together(tables, first, second) for first, second in combinations(last_table, 2))


@pytest.mark.parametrize("size", [3, 4])
def test_more_seats_keep_a_repeat_when_nobody_else_is_there(size: int) -> None:
    last_table = tuple(range(100, 100 + size))
    assert arena_tables(crowd(size, met=last_table), size) == [list(last_table)]


@pytest.mark.parametrize("size", [3, 4])
def test_more_seats_never_seat_a_block(size: int) -> None:
    block = frozenset({frozenset({100, 101})})
    assert arena_tables(crowd(size), size, apart=block) == []
    tables = arena_tables(crowd(3 * size), size, apart=block)
    assert len(tables) == 3
    assert not together(tables, 100, 101)


@pytest.mark.parametrize("size", [3, 4])
def test_more_seats_leave_those_who_waited_least(size: int) -> None:
    people = [waiting(user, rank=user, waited=100 - user) for user in range(size + 2)]
    tables = arena_tables(people, size)
    assert tables == [list(range(size))]


def test_teams_put_the_best_and_the_worst_against_the_middle_two() -> None:
    people = [waiting(1, 3), waiting(2, 0), waiting(3, 2), waiting(4, 1)]
    assert arena_tables(people, 4, teams=True) == [[2, 4, 1, 3]]


def test_teams_seat_only_at_four() -> None:
    with pytest.raises(ValueError, match="four"):
        arena_tables(crowd(2), 2, teams=True)


def test_arena_is_the_same_for_the_same_crowd() -> None:
    people = [waiting(user, rank=user % 5, waited=float(user % 3)) for user in range(23)]
    shuffled = people[::-1]
    for size in (2, 3, 4):
        assert arena_tables(people, size) == arena_tables(shuffled, size)


@st.composite
def arena_crowds(draw: st.DrawFn) -> tuple[list[Waiting], int, frozenset[frozenset[int]]]:
    size = draw(st.sampled_from([2, 3, 4]))
    users = draw(st.lists(st.integers(1, 60), unique=True, max_size=40))
    people = [
        Waiting(
            user=user,
            rank=draw(st.integers(0, 80)),
            waited=draw(st.floats(0, 100)),
            last_opponents=frozenset(draw(st.lists(st.sampled_from(users), max_size=3))) - {user},
        )
        for user in users
    ]
    pairs = list(combinations(users, 2))
    blocks = draw(st.lists(st.sampled_from(pairs), max_size=6)) if pairs else []
    return people, size, frozenset(frozenset(pair) for pair in blocks)


@given(arena_crowds(), st.booleans())
def test_arena_tables_are_full_and_seat_everyone_once_at_most(crowd_and_size, teams: bool) -> None:
    people, size, apart = crowd_and_size
    teams = teams and size == 4
    tables = arena_tables(people, size, teams=teams, apart=apart)
    seated = [user for table in tables for user in table]
    assert len(seated) == len(set(seated))
    assert set(seated) <= {person.user for person in people}
    assert all(len(table) == size for table in tables)
    assert not any(frozenset(pair) in apart for table in tables for pair in combinations(table, 2))
    if not apart:
        assert len(tables) == len(people) // size


# --- Swiss ----------------------------------------------------------------------------------------


def play_swiss(count: int, size: int, rounds: int, seed: int) -> tuple[dict[int, list[int]], dict[int, int]]:
    """A simulated event with random results: who met whom, how often, and everyone's byes."""
    rng = random.Random(seed)
    points = dict.fromkeys(range(1, count + 1), 0)
    ratings = {user: rng.randint(1000, 2000) for user in points}
    met: dict[int, list[int]] = {user: [] for user in points}
    byes = dict.fromkeys(points, 0)
    for _ in range(rounds):
        players = [
            SwissPlayer(
                user=user,
                points=points[user],
                rating=ratings[user],
                opponents=frozenset(met[user]),
                byes=byes[user],
            )
            for user in points
        ]
        swiss = swiss_round(players, size)
        for user in swiss.byes:
            byes[user] += 1
            points[user] += BYE_POINTS
        for table in swiss.tables:
            assert len(table) == size
            places = [rng.randint(1, size) for _ in table]
            for user, gained in zip(table, place_points(places), strict=True):
                points[user] += gained
                met[user] += [other for other in table if other != user]
    return met, byes


@pytest.mark.parametrize("count", [8, 9])
@pytest.mark.parametrize("seed", range(5))
def test_swiss_two_seats_never_pair_twice(count: int, seed: int) -> None:
    met, byes = play_swiss(count, 2, rounds=5, seed=seed)
    assert all(len(others) == len(set(others)) for others in met.values())
    assert all(had <= 1 for had in byes.values())
    assert sum(byes.values()) == (5 if count % 2 else 0)


TIGHT_EVENTS = [(16, 4, 3), (17, 4, 3), (24, 4, 4), (12, 3, 3), (14, 3, 4), (15, 3, 4)]
"""(players, seats, rounds) where a repeat-free event exists, yet single swaps alone miss it."""


@pytest.mark.parametrize(("count", "size", "rounds"), TIGHT_EVENTS)
@pytest.mark.parametrize("seed", range(3))
def test_swiss_more_seats_never_share_a_table_twice(count: int, size: int, rounds: int, seed: int) -> None:
    met, byes = play_swiss(count, size, rounds=rounds, seed=seed)
    assert all(len(others) == len(set(others)) for others in met.values())
    assert max(byes.values()) <= 1


def player(
    user: int, points: int, *, rating: int = 1500, met: tuple[int, ...] = (), byes: int = 0
) -> SwissPlayer:
    return SwissPlayer(user=user, points=points, rating=rating, opponents=frozenset(met), byes=byes)


def test_swiss_two_seats_pair_inside_score_groups() -> None:
    players = [player(user, 4 if user <= 4 else 0, rating=2000 - user) for user in range(1, 9)]
    swiss = swiss_round(players, 2)
    assert swiss.byes == []
    assert swiss.tables == [[1, 2], [3, 4], [5, 6], [7, 8]]


def test_swiss_two_seats_avoid_a_rematch_inside_the_group_first() -> None:
    players = [
        player(1, 4, rating=1900, met=(2,)),
        player(2, 4, rating=1800, met=(1,)),
        player(3, 4, rating=1700),
        player(4, 4, rating=1600),
        player(5, 0, rating=1500),
        player(6, 0, rating=1400),
    ]
    tables = swiss_round(players, 2).tables
    assert not together(tables, 1, 2)
    assert all(set(table) <= {1, 2, 3, 4} or set(table) == {5, 6} for table in tables)


def test_swiss_bye_goes_to_the_lowest_ranked_of_the_fewest_byes() -> None:
    players = [
        player(1, 6),
        player(2, 4),
        player(3, 2, byes=1),
        player(4, 2, rating=1600),
        player(5, 2, rating=1400, byes=1),
    ]
    swiss = swiss_round(players, 2)
    assert swiss.byes == [4]
    assert sorted(user for table in swiss.tables for user in table) == [1, 2, 3, 5]


def test_swiss_more_seats_put_the_leaders_together() -> None:
    players = [player(user, 20 - user, rating=1500) for user in range(1, 12)]
    swiss = swiss_round(players, 4)
    assert swiss.byes == [9, 10, 11]
    assert swiss.tables == [[1, 2, 3, 4], [5, 6, 7, 8]]
    teams = swiss_round(players, 4, teams=True)
    assert teams.tables == [[1, 2, 4, 3], [5, 6, 8, 7]]


@st.composite
def swiss_fields(draw: st.DrawFn) -> tuple[list[SwissPlayer], int]:
    size = draw(st.sampled_from([2, 3, 4]))
    users = draw(st.lists(st.integers(1, 40), unique=True, max_size=24))
    players = [
        SwissPlayer(
            user=user,
            points=draw(st.integers(0, 10)),
            rating=draw(st.integers(800, 2400)),
            opponents=frozenset(draw(st.lists(st.sampled_from(users), max_size=5))) - {user},
            byes=draw(st.integers(0, 2)),
        )
        for user in users
    ]
    return players, size


@given(swiss_fields())
def test_swiss_rounds_are_full_and_place_everyone_exactly_once(field: tuple[list[SwissPlayer], int]) -> None:
    players, size = field
    swiss = swiss_round(players, size)
    placed = [user for table in swiss.tables for user in table] + swiss.byes
    assert sorted(placed) == sorted(player.user for player in players)
    assert all(len(table) == size for table in swiss.tables)
    assert len(swiss.byes) == len(players) % size


# --- standings ------------------------------------------------------------------------------------


def test_buchholz_and_sonneborn_berger_worked_by_hand() -> None:
    # Round 1: 1 beats 2; 3 and 4 level.   Round 2: 3 beats 1; 2 beats 4.
    # Final points: 1 -> 2 + 0 = 2, 2 -> 0 + 2 = 2, 3 -> 1 + 2 = 3, 4 -> 1 + 0 = 1.
    # Buchholz:  1: 2 (of 2) + 3 (of 3) = 5;  2: 2 + 1 = 3;  3: 1 + 2 = 3;  4: 3 + 2 = 5.
    # S-B:       1: beat 2 -> 2;  2: beat 4 -> 1;  3: level with 4 -> 1/2, beat 1 -> 2: 2.5;
    #            4: level with 3 -> 3/2 = 1.5.
    # Order: 3 (3 points), then 1 and 2 on 2 points split by Buchholz 5 > 3, then 4.
    standees = [
        Standee(user=1, points=2, wins=1, matches=2, rating=1500),
        Standee(user=2, points=2, wins=1, matches=2, rating=1900),
        Standee(user=3, points=3, wins=1, matches=2, rating=1500),
        Standee(user=4, points=1, wins=0, matches=2, rating=1500),
    ]
    results = [
        TableResult(sides=[[1], [2]], places=[1, 2]),
        TableResult(sides=[[3], [4]], places=[1, 1]),
        TableResult(sides=[[1], [3]], places=[2, 1]),
        TableResult(sides=[[2], [4]], places=[1, 2]),
    ]
    ranked = standings(standees, results)
    assert [(entry.user, entry.rank) for entry in ranked] == [(3, 1), (1, 2), (2, 3), (4, 4)]
    assert {entry.user: entry.buchholz for entry in ranked} == {1: 5, 2: 3, 3: 3, 4: 5}
    assert {entry.user: entry.sonneborn_berger for entry in ranked} == {1: 2, 2: 1, 3: 2.5, 4: 1.5}


def test_partners_are_not_opponents_and_the_disqualified_count_nothing() -> None:
    # Teams 1+3 and 2+4 level: 1's opponents are 2 (4 points) and 4 (1 point): Buchholz 5, S-B 5/2.
    # A three-seat table 1, 2, 99 (99 disqualified): 1 first, 2 and 99 level second.
    #   1: Buchholz + 4 + 0, S-B + 4 + 0;  2: Buchholz + 6 (1's points) + 0, S-B + 0 + 0 / 2.
    standees = [
        Standee(user=1, points=6, wins=1, matches=2, rating=1500),
        Standee(user=2, points=4, wins=0, matches=2, rating=1500),
        Standee(user=3, points=3, wins=0, matches=1, rating=1500),
        Standee(user=4, points=1, wins=0, matches=1, rating=1500),
    ]
    results = [
        TableResult(sides=[[1, 3], [2, 4]], places=[1, 1]),
        TableResult(sides=[[1], [2], [99]], places=[1, 2, 2]),
    ]
    by_user = {entry.user: entry for entry in standings(standees, results)}
    assert (by_user[1].buchholz, by_user[1].sonneborn_berger) == (9, 6.5)
    assert (by_user[2].buchholz, by_user[2].sonneborn_berger) == (15, 4.5)
    assert (by_user[3].buchholz, by_user[3].sonneborn_berger) == (5, 2.5)
    assert 99 not in by_user


def test_ties_fall_to_wins_then_rating_then_user() -> None:
    standees = [
        Standee(user=5, points=2, wins=0, matches=2, rating=1500),
        Standee(user=4, points=2, wins=1, matches=1, rating=1400),
        Standee(user=3, points=2, wins=0, matches=2, rating=1600),
        Standee(user=2, points=2, wins=0, matches=2, rating=1500),
    ]
    assert [entry.user for entry in standings(standees, [])] == [4, 3, 2, 5]


def test_the_podium_is_the_first_three_who_played() -> None:
    standees = [
        Standee(user=1, points=0, wins=0, matches=0, rating=2500),
        Standee(user=2, points=0, wins=0, matches=1, rating=1500),
        Standee(user=3, points=0, wins=0, matches=3, rating=1400),
        Standee(user=4, points=0, wins=0, matches=1, rating=1300),
        Standee(user=5, points=0, wins=0, matches=1, rating=1200),
    ]
    assert [entry.user for entry in podium(standings(standees, []))] == [2, 3, 4]
