"""The tournaments under faults, on PostgreSQL: a worker killed mid-pairing, two pairings at once, the
end arriving while a table is being made, the server's clock jumping, a score whose signal was lost."""

import os
import signal
import subprocess
import sys
import threading
import types
from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.utils import timezone

from gameplay.models import Match
from gameplay.signals import match_finished
from social.models import Notice
from tests.conftest import ROOT, database_url_for_tests
from tests.faults.play import wait_for
from tournaments import services
from tournaments.models import Entry, Pairing, Score, Tournament, Trophy
from tournaments.services import lifecycle

from .conftest import (
    closing_connection,
    entered,
    held_by_another_session,
    open_tables,
    play_out,
    waiting_for_lock,
)

pytestmark = pytest.mark.django_db(transaction=True)

PAIR_IN_A_PROCESS = """
import django, sys
django.setup()
from tournaments import services
services.arena_pair(tournament_id=int(sys.argv[1]))
"""


def everyone_once(event: Tournament) -> dict[int, int]:
    """Person → their open table in ``event``; fails if anyone sits at two."""
    seated: dict[int, int] = {}
    for table_id, seats in open_tables(event).items():
        for user_id in seats:
            assert user_id not in seated, f"{user_id} sits at tables {seated[user_id]} and {table_id}"
            seated[user_id] = table_id
    return seated


def tables_held():
    """Nobody can make a table (a long lock on the tables' table): a pairing that has claimed its
    players waits there. Released on leaving."""
    return held_by_another_session("LOCK TABLE tables_table IN SHARE ROW EXCLUSIVE MODE")


def waiting_for_tables() -> list[int]:
    """The sessions waiting to make a table (a pairing blocked there)."""
    return waiting_for_lock("tables_table")


def session_alive(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
        return bool(cursor.fetchone()[0])


def crowd(event: Tournament, people: list) -> None:
    for person in people:
        entered(event, person)


def test_a_worker_killed_mid_pairing_seats_nobody_and_the_next_pairing_seats_everyone_once(
    running_arena, people
):
    crowd(running_arena, people)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url_for_tests(),
    }
    with tables_held():
        worker = subprocess.Popen(
            [sys.executable, "-c", PAIR_IN_A_PROCESS, str(running_arena.pk)], cwd=ROOT, env=env
        )
        try:
            (blocked,) = wait_for(waiting_for_tables, 30, "the pairing waits to make its first table")
            # It has claimed the tournament and its players: another pairing skips the tournament.
            assert services.arena_pair(tournament_id=running_arena.pk) == {}
        finally:
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait()
        assert worker.returncode == -signal.SIGKILL
    # The killed worker's session gives up once it finds its client gone: it committed nothing.
    wait_for(lambda: not session_alive(blocked), 30, "the killed worker's session ends")
    assert not Pairing.objects.exists()
    assert not Entry.objects.filter(table__isnull=False).exists()

    sent = services.arena_pair(tournament_id=running_arena.pk)
    assert sorted(sent) == sorted(person.pk for person in people)
    assert everyone_once(running_arena) == sent


def test_two_pairings_at_once_seat_nobody_twice(running_arena, people):
    crowd(running_arena, people)
    start = threading.Barrier(2)
    sent: list[dict[int, int]] = []

    def pair() -> None:
        try:
            start.wait()
            sent.append(services.arena_pair(tournament_id=running_arena.pk))
        finally:
            connection.close()

    pairings = [threading.Thread(target=pair) for _ in range(2)]
    for thread in pairings:
        thread.start()
    for thread in pairings:
        thread.join()

    seated = everyone_once(running_arena)
    assert sorted(seated) == sorted(person.pk for person in people)
    both = [user_id for table in sent for user_id in table]
    assert sorted(both) == sorted(seated)  # each seated by one pairing only


def test_the_end_waits_for_a_table_being_made_and_that_table_scores_nothing(running_arena, people):
    crowd(running_arena, people[:2])
    after_the_end = types.SimpleNamespace(now=lambda: running_arena.ends_at + timedelta(seconds=1))
    finished = threading.Event()

    def pair() -> None:
        try:
            services.arena_pair(tournament_id=running_arena.pk)
        finally:
            connection.close()

    def end() -> None:
        try:
            lifecycle._arena_move_on(running_arena.pk)
            finished.set()
        finally:
            connection.close()

    pairing = threading.Thread(target=pair)
    ending = threading.Thread(target=end)
    with mock.patch.object(lifecycle, "timezone", after_the_end):  # the end's clock has passed it
        with tables_held():
            pairing.start()
            wait_for(waiting_for_tables, 30, "the pairing waits to make its table")
            ending.start()
            wait_for(lambda: waiting_for_lock("tournaments_tournament"), 30, "the end waits for the pairing")
            assert not finished.is_set()
        pairing.join()
        ending.join()

    running_arena.refresh_from_db()
    assert running_arena.status == Tournament.Status.FINISHED
    ((table_id, _seats),) = open_tables(running_arena).items()
    assert Pairing.objects.get(table_id=table_id).made_at < running_arena.finished_at
    play_out(table_id)
    pairing_row = Pairing.objects.get(table_id=table_id)
    assert pairing_row.scored_at is not None and not pairing_row.counted
    assert not Entry.objects.filter(points__gt=0).exists()


def shifted(by: timedelta):
    """Every clock of the process reads ``by`` away from now."""
    real_now = timezone.now
    return mock.patch("django.utils.timezone.now", lambda: real_now() + by)


def test_a_clock_set_back_after_the_end_reopens_nothing_and_one_set_ahead_ends_an_arena_once(people):
    from .conftest import tournament

    over = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-40), minutes=30)
    crowd(over, people[:2])
    services.tick()
    over.refresh_from_db()
    assert over.status == Tournament.Status.FINISHED
    finished_at = over.finished_at

    with shifted(timedelta(hours=-1)):
        services.tick()
        services.tick()
    over.refresh_from_db()
    assert (over.status, over.finished_at) == (Tournament.Status.FINISHED, finished_at)
    assert not Pairing.objects.filter(tournament=over).exists()
    assert not Notice.objects.exists()

    running = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))
    crowd(running, people[2:6])
    services.arena_pair(tournament_id=running.pk)
    (table_id, seats), _other = open_tables(running).items()
    play_out(table_id)
    with shifted(timedelta(hours=1)):
        services.tick()
        running.refresh_from_db()
        ended_at = running.finished_at
        trophies = sorted(Trophy.objects.filter(tournament=running).values_list("user_id", "place"))
        services.tick()
        services.tick()
    running.refresh_from_db()
    assert (running.status, running.finished_at) == (Tournament.Status.FINISHED, ended_at)
    assert sorted(Trophy.objects.filter(tournament=running).values_list("user_id", "place")) == trophies
    assert {user_id for user_id, _place in trophies} == set(seats)
    assert not running.pairings.filter(made_at__gt=timezone.now()).exists()


def test_a_score_whose_signal_was_lost_is_scored_by_the_tick_once(running_arena, people):
    crowd(running_arena, people[:2])
    services.arena_pair(tournament_id=running_arena.pk)
    ((table_id, seats),) = open_tables(running_arena).items()
    match_finished.disconnect(sender=Match, dispatch_uid="tournaments.match_decided")
    try:
        play_out(table_id)
    finally:
        match_finished.connect(services.match_decided, sender=Match, dispatch_uid="tournaments.match_decided")
    pairing = Pairing.objects.get(table_id=table_id)
    assert pairing.scored_at is None  # the receiver heard nothing

    services.tick()
    services.tick()
    pairing.refresh_from_db()
    assert pairing.scored_at is not None and pairing.counted
    assert Score.objects.filter(pairing=pairing).count() == 2
    assert sum(Entry.objects.filter(tournament=running_arena).values_list("matches", flat=True)) == 2
    (seated_again,) = open_tables(running_arena).values()  # and the catch-up seated them again
    assert sorted(seated_again) == sorted(seats)


def test_one_tournament_failing_its_tick_keeps_no_other_from_theirs(people, caplog):
    from .conftest import tournament

    good = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-2))
    # Newer (ticked first), and its options a game no longer takes: its tables cannot be made.
    broken = tournament(
        status=Tournament.Status.RUNNING,
        starts_in=timedelta(minutes=-1),
        options={"players": 2, "match": "forever"},
    )
    crowd(broken, people[:2])
    crowd(good, people[2:4])

    services.tick()

    assert open_tables(broken) == {}
    assert sorted(everyone_once(good)) == sorted(person.pk for person in people[2:4])
    assert f"arena {broken.pk} failed" in caplog.text


def test_a_person_in_two_arenas_paired_by_both_at_once_sits_at_one_table(people):
    from .conftest import tournament

    both, first_mate, *second_mates = people[:4]
    first, second = (
        tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1)) for _ in range(2)
    )
    crowd(first, [both, first_mate])
    crowd(second, [both, *second_mates])
    pairings = [
        threading.Thread(target=closing_connection(services.arena_pair), kwargs={"tournament_id": event.pk})
        for event in (first, second)
    ]
    with tables_held():
        pairings[0].start()
        wait_for(waiting_for_tables, 30, "the first arena's pairing waits to make its table")
        pairings[1].start()
        wait_for(lambda: len(waiting_for_tables()) == 2, 30, "the second arena's pairing waits too")
    for thread in pairings:
        thread.join()

    assert everyone_once(first) == {both.pk: mock.ANY, first_mate.pk: mock.ANY}
    assert sorted(everyone_once(second)) == sorted(mate.pk for mate in second_mates)


def test_a_swiss_round_leaves_out_whoever_is_at_a_table_elsewhere(people, swiss_event):
    from .conftest import tournament

    arena = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))
    crowd(arena, people[:2])
    services.arena_pair(tournament_id=arena.pk)
    crowd(swiss_event, people[1:5])

    services.tick()

    seated = everyone_once(swiss_event)
    # The three free: one table, one bye; the one at the arena's table misses the round.
    assert len(seated) == 2 and set(seated) <= {person.pk for person in people[2:5]}
    assert not Score.objects.filter(entry__user=people[1], entry__tournament=swiss_event).exists()
