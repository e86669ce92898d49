"""The pairing pool under a crowd, on PostgreSQL and Redis, with the site's own processes: two Daphne
servers and a Celery worker running beat (the pool's tick), all started here on the test database.

Three hundred people open the pool's socket (``/ws/me/?pool=1``), half on each server, and then join
pools all at once over HTTP (``POST /play/``, ``IN_FLIGHT`` requests at a time, half of them through
the other server than their socket's), some of them cancelling (``POST /play/cancel/``) the moment
their join is answered. Then: nobody is seated twice; every table made is full (a person or a bot in
each seat) and playing; whoever accepted bots and did not cancel has a table, and bots sat at a table
only once its longest waiting person had waited the bot fill time; nobody who cancelled before being
paired is seated; and every person the pool seated heard of it on their socket. How fast the pool
finds a table is ``manage.py pairbench``'s to measure, not this test's: a shared machine's load only
lengthens the waits.
"""

import asyncio
import random
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.db.models import Count

from bench.management.commands.loadbench import session_cookie
from bench.management.commands.pairbench import (
    Reply,
    csrf_secret,
    make_people,
    paired_frame,
    pool_form,
    post_form,
    site_socket,
)
from gameplay.models import Match
from social.models import PoolEntry
from tables.models import Seat, Table
from tests.conftest import (
    ARTIFACTS,
    free_ports,
    site_env,
    start_celery_worker,
    start_daphne,
    stop,
    wait_for_port,
)

pytestmark = pytest.mark.django_db(transaction=True)

FILL_SECONDS = 4.0
"""The servers' and the worker's ``POOL_BOT_FILL_SECONDS``."""
TICK_SECONDS = settings.POOL_TICK_SECONDS
SETTLE_SECONDS = 45.0
"""How long the crowd may wait for every person who accepted bots to be seated: not a speed target
(on an idle machine all are seated a few seconds past the fill time), only the bound after which the
pool is taken to be stuck."""
SEEN_EVERY = settings.POOL_SEEN_EVERY_SECONDS
CLOCK_SECONDS = 0.05
"""A join is stamped by a server's clock and a pairing by the worker's: one machine's, read by two
processes, which the test allows a few milliseconds apart."""
TABLE = re.compile(r"^/tables/(\d+)/$")

MIX = (
    # (game, players, target or match length, fill with bots, how many)
    ("americana", 2, 101, False, 70),
    ("americana", 2, 101, True, 40),
    ("americana", 3, 101, True, 30),
    ("americana", 3, 101, False, 20),
    ("americana", 4, 301, True, 40),
    ("americana", 4, 301, False, 10),
    ("classic", 2, "points8", False, 40),
    ("classic", 2, "points8", True, 20),
    ("classic", 2, "games1", True, 13),
    # Pools of a few, where bots complete whatever tables people leave short.
    ("americana", 4, 501, True, 6),
    ("americana", 3, 501, True, 2),
    ("americana", 2, 301, True, 1),
    ("classic", 3, "points21", True, 2),
    ("classic", 4, "games1", True, 3),
    ("classic", 3, "games2", True, 1),
    ("classic", 4, "games3", True, 2),
)
PEOPLE = sum(row[-1] for row in MIX)
SERVERS_CONN_MAX_AGE = "0"
"""The servers close each request's PostgreSQL connection when it ends. With the site's 60, a request's
connection outlives it: Django serves each ASGI request on a thread of its own, and the connection it
opened there is closed only once the garbage collector gets to it, so a few hundred requests leave
dozens open per process (84 after 300 logins, 12 at a time, into one Daphne) and PostgreSQL's 100 run
out. This test is about the pool, not that."""
IN_FLIGHT = 24
"""The crowd's requests under way at once. Django serves each request on a thread of its own, with a
PostgreSQL connection of its own, so each request in flight holds one: this many, with both servers'
reading threads, the worker and whatever else shares the PostgreSQL server, stays within its 100."""
CANCEL_EVERY = 8
"""One person in this many cancels as soon as their join is answered."""


@dataclass
class Person:
    user_id: int
    cookies: str
    csrf: str
    game: str
    players: int
    length: object
    bots: bool
    cancels: bool
    socket_port: int
    http_port: int
    joined: Reply | None = None
    cancel_sent: float = 0.0
    cancelled: Reply | None = None
    cancel_done: float = 0.0
    frame_at: float = 0.0
    url: str = ""
    errors: list[str] = field(default_factory=list)


def crowd_of(ports: tuple[int, int]) -> list[Person]:
    rng = random.Random(20)
    pools = [
        (game, players, length, bots) for game, players, length, bots, count in MIX for _ in range(count)
    ]
    rng.shuffle(pools)
    users = make_people(len(pools), "crowd")
    crowd = []
    for index, (user, (game, players, length, bots)) in enumerate(zip(users, pools, strict=True)):
        csrf = csrf_secret()
        crowd.append(
            Person(
                user_id=user.pk,
                cookies=f"{session_cookie(user)}; {settings.CSRF_COOKIE_NAME}={csrf}",
                csrf=csrf,
                game=game,
                players=players,
                length=length,
                bots=bots,
                cancels=index % CANCEL_EVERY == 3,
                socket_port=ports[index % 2],
                http_port=ports[(index // 2) % 2],  # half join through the other server
            )
        )
    return crowd


async def gather_all(coroutines) -> None:
    """Run them all; the first failure once every one has ended."""
    results = await asyncio.gather(*coroutines, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


async def join_and_maybe_cancel(person: Person, in_flight: asyncio.Semaphore) -> None:
    fields = pool_form(
        game=person.game,
        players=person.players,
        length=person.length,
        fill_with_bots=person.bots,
        csrf=person.csrf,
    )
    async with in_flight:
        await _join_and_maybe_cancel(person, fields)


async def _join_and_maybe_cancel(person: Person, fields: dict[str, str]) -> None:
    person.joined = await post_form("127.0.0.1", person.http_port, "/play/", person.cookies, fields)
    if person.cancels:
        person.cancel_sent = time.time()
        person.cancelled = await post_form(
            "127.0.0.1",
            person.http_port,
            "/play/cancel/",
            person.cookies,
            {"csrfmiddlewaretoken": person.csrf},
        )
        person.cancel_done = time.time()


async def listen(person: Person, page) -> None:
    try:
        person.frame_at, person.url = await paired_frame(page)
    except Exception as error:  # the socket closed: noted, and the test fails on it
        person.errors.append(repr(error))


def left_to_fill(crowd: list[Person]) -> int:
    """How many people who accepted bots and did not cancel have no table yet (a thread's query,
    whose connection is closed after it)."""
    waiting = [person.user_id for person in crowd if person.bots and not person.cancels]
    try:
        return PoolEntry.objects.filter(user_id__in=waiting, table__isnull=True).count()
    finally:
        connection.close()


async def crowd_joins(crowd: list[Person], worker) -> None:
    """Open every socket, join all at once, wait until all who accepted bots are seated, stop the
    worker (no more pairing from then on) and give the sockets time to hear of the last tables."""
    pages = []

    async def open_page(person: Person, delay: float) -> None:
        await asyncio.sleep(delay)
        page = await site_socket(f"http://127.0.0.1:{person.socket_port}", person.cookies)
        pages.append((person, page))

    try:
        async with asyncio.timeout(SETTLE_SECONDS + 60):
            await gather_all(open_page(person, index * 0.005) for index, person in enumerate(crowd))
            listeners = [asyncio.ensure_future(listen(person, page)) for person, page in pages]
            in_flight = asyncio.Semaphore(IN_FLIGHT)
            await gather_all(join_and_maybe_cancel(person, in_flight) for person in crowd)
            settle_by = time.monotonic() + SETTLE_SECONDS
            while await asyncio.to_thread(left_to_fill, crowd) and time.monotonic() < settle_by:
                await asyncio.sleep(TICK_SECONDS)
            await asyncio.to_thread(stop, worker)
            # Every table is made: its frame is on its way, or else the servers' heartbeat sends it.
            await asyncio.wait(listeners, timeout=SEEN_EVERY + 2)
            for listener in listeners:
                listener.cancel()
    finally:
        await asyncio.gather(*(page.close() for _person, page in pages), return_exceptions=True)


def wait_until_ready(worker, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while " ready." not in log.read_text(errors="replace"):
        if worker.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"The worker did not get ready; see {log}.")
        time.sleep(0.1)


def seconds(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds()


def test_a_crowd_joining_pools_at_once_is_seated_once_each_at_full_started_tables(tmp_path):
    base = free_ports(2)
    ports = (base, base + 1)
    crowd = crowd_of(ports)
    env = site_env(
        POOL_BOT_FILL_SECONDS=str(FILL_SECONDS),
        CONN_MAX_AGE=SERVERS_CONN_MAX_AGE,
        # Redis's pub/sub channels are the server's, whatever the database number: without a prefix
        # of their own, these servers would hear other processes' news of a person with the same id.
        CHANNELS_PREFIX=f"septica-{uuid.uuid4().hex[:12]}",
        # The whole crowd comes from this machine's one address.
        POOL_JOINS_PER_ADDRESS_PER_MINUTE="1000000",
    )
    worker_log = ARTIFACTS / "pool-concurrency-worker.log"
    processes = []
    with (ARTIFACTS / "pool-concurrency-daphne.log").open("w") as log, worker_log.open("w") as wlog:
        try:
            processes += [start_daphne(port, env, log) for port in ports]
            worker = start_celery_worker(env, wlog, beat_schedule=tmp_path / "beat", level="INFO")
            processes.append(worker)
            for port, server in zip(ports, processes[:2], strict=True):
                wait_for_port(port, server)
            wait_until_ready(worker, worker_log)
            asyncio.run(crowd_joins(crowd, worker))
        finally:
            for process in processes:
                stop(process)

    assert not [person.errors for person in crowd if person.errors]
    assert all(person.joined.status == 302 for person in crowd), {person.joined for person in crowd}
    cancellers = [person for person in crowd if person.cancels]
    assert all(person.cancelled.status == 302 for person in cancellers)

    # Nobody sits twice, and every seat the pool gave is one it recorded.
    ids = [person.user_id for person in crowd]
    assert not Seat.objects.filter(user_id__in=ids).values("user_id").annotate(n=Count("id")).filter(n__gt=1)
    seat_of = dict(Seat.objects.filter(user_id__in=ids).values_list("user_id", "table_id"))
    entries = {entry.user_id: entry for entry in PoolEntry.objects.filter(user_id__in=ids)}
    for person in crowd:
        entry = entries.get(person.user_id)
        if entry is not None:
            assert seat_of.get(person.user_id) == entry.table_id, person
        elif not person.cancels:
            assert person.user_id not in seat_of, person

    # Every table made is full, a person or a bot in each seat, and its match started.
    tables = list(Table.objects.prefetch_related("seats"))
    assert len(tables) > PEOPLE // 4
    started = set(Match.objects.values_list("table_id", flat=True))
    for table in tables:
        seats = list(table.seats.all())
        assert len(seats) == table.options["players"], table
        assert all(seat.user_id is not None or seat.bot_level for seat in seats), table
        assert table.status == Table.Status.PLAYING and table.pk in started, table
    made_at = {table.pk: table.created_at for table in tables}

    # Whoever accepted bots and stayed has a table; bots took seats only at a table whose longest
    # waiting person had waited the fill time when it was made.
    for person in crowd:
        if person.bots and not person.cancels:
            assert entries[person.user_id].table_id is not None, person
    with_bots = [table for table in tables if any(seat.bot_level for seat in table.seats.all())]
    assert with_bots  # some tables were short of people, and bots completed them
    for table in with_bots:
        people = [entry for entry in entries.values() if entry.table_id == table.pk]
        if not people:  # all its people cancelled after being paired: their entries are gone
            continue
        longest = max(seconds(entry.paired_at, entry.joined_at) for entry in people)
        assert longest >= FILL_SECONDS - CLOCK_SECONDS, (table, people)

    # Nobody who cancelled before being paired is seated; those paired first have the table they
    # were shown, made before they cancelled.
    for person in cancellers:
        shown = TABLE.match(person.cancelled.location)
        if shown is None:
            assert person.user_id not in seat_of, person
            assert not person.url, person
        else:
            table_id = int(shown.group(1))
            assert seat_of[person.user_id] == table_id, person
            assert made_at[table_id].timestamp() <= person.cancel_done, person
        assert person.user_id not in entries, person

    # Everyone the pool seated (and who is still in it) heard of their table on their socket: from the
    # pool's news as the table was made, or at the latest from their server's next heartbeat.
    seated = [person for person in crowd if entries.get(person.user_id) and entries[person.user_id].table_id]
    assert len(seated) > PEOPLE // 2
    for person in seated:
        entry = entries[person.user_id]
        assert person.url == f"/tables/{entry.table_id}/", (person, entry.paired_at)
        assert person.frame_at - entry.paired_at.timestamp() <= SEEN_EVERY + 2, (person, entry.paired_at)
