"""The pool and the lobby seating one person at the same moment, on PostgreSQL, each on a connection
of its own: the pool has claimed the person's entry and is making their table when they take a seat
in the lobby. One of the two seats them, never both."""

import threading
import time

import pytest
from django.db import connection, connections
from django.utils import timezone

from gameplay import services as gameplay_services
from social import services as social_services
from social.models import PoolEntry
from tables import services as table_services
from tables.models import Seat, Table
from tables.services import TableError
from tables.signals import table_filled
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_SECONDS = 30.0
"""The bound on every wait for the other connection: only reached if it is stuck."""


def waiting_for_a_lock(exclude_pid: int) -> bool:
    """Whether another backend of this database waits for a row lock (the lobby's seat waiting for the
    pool's transaction)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> %s",
            [exclude_pid],
        )
        return cursor.fetchone()[0] > 0


def in_thread(work, outcome: dict, name: str) -> threading.Thread:
    def run() -> None:
        try:
            outcome[name] = work()
        except Exception as error:  # the lobby's refusal is an outcome, not a crash
            outcome[name] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, name=name)
    thread.start()
    return thread


def test_a_lobby_seat_taken_while_the_pool_seats_the_same_person_seats_them_once():
    ana, ion, host = make_user("ana"), make_user("ion"), make_user("host")
    lobby = gameplay_services.table_create(
        host=host, game="americana", options={"players": 3}, turn_clock=45, is_private=False, rated=True
    )
    now = timezone.now()
    options = social_services.pool_options(game="americana", players=2, length=101)
    key = social_services.pool_key("americana", options, social_services.POOL_RATED)
    for person in (ana, ion):
        PoolEntry.objects.create(
            user=person, game="americana", options=options, pool=key, rating=1500, joined_at=now, seen_at=now
        )

    pool_dealing, go_on = threading.Event(), threading.Event()

    def hold_the_pool(sender, *, table, **kwargs) -> None:
        """The pool's table is made and dealing, its transaction still open: wait for the lobby."""
        if threading.current_thread().name == "pool":
            pool_dealing.set()
            assert go_on.wait(WAIT_SECONDS)

    table_filled.connect(hold_the_pool, sender=Table, dispatch_uid="test.hold_the_pool")
    outcome: dict = {}
    try:
        pool = in_thread(lambda: social_services.pool_pair(pool=key), outcome, "pool")
        assert pool_dealing.wait(WAIT_SECONDS)
        seat = in_thread(lambda: table_services.seat_take(table_id=lobby.pk, user=ana), outcome, "lobby")
        # The lobby's seat either goes through at once (nothing stops it) or waits for the pool's
        # transaction: either way, the pool then goes on.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            (me,) = cursor.fetchone()
        deadline = time.monotonic() + WAIT_SECONDS
        while seat.is_alive() and not waiting_for_a_lock(me) and time.monotonic() < deadline:
            time.sleep(0.01)
        go_on.set()
        pool.join(WAIT_SECONDS)
        seat.join(WAIT_SECONDS)
    finally:
        go_on.set()
        table_filled.disconnect(dispatch_uid="test.hold_the_pool", sender=Table)

    assert not pool.is_alive() and not seat.is_alive()
    assert len(outcome["pool"]) == 1, outcome
    seats = list(
        Seat.objects.filter(user=ana, table__status__in=Table.NOT_OVER).values_list("table_id", flat=True)
    )
    assert seats == outcome["pool"], f"ana sits at {seats}: the pool's table and the lobby's"
    assert isinstance(outcome["lobby"], TableError), outcome
    assert "The pool has just found you a table" in str(outcome["lobby"])


def test_a_seat_taken_in_the_lobby_takes_the_person_out_of_the_pool():
    ana, host = make_user("ana"), make_user("host")
    social_services.pool_join(user=ana, game="americana", players=2, length=101, fill_with_bots=False)
    lobby = gameplay_services.table_create(
        host=host, game="americana", options={"players": 3}, turn_clock=45, is_private=False, rated=True
    )
    table_services.seat_take(table_id=lobby.pk, user=ana)
    assert not PoolEntry.objects.filter(user=ana).exists()
