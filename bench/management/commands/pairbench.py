"""``manage.py pairbench``: many simulated people joining the pairing pool over real websockets.

Run it against a running site (``manage.py prod``: nginx, Daphne processes, a Celery worker with
beat) that shares this process's ``DATABASE_URL`` and ``SECRET_KEY`` (the sessions it makes are the
site's). ``--people`` people arrive evenly over ``--seconds``; each, as a browser would, opens the
pool's socket (``/ws/me/?pool=1``), joins a pool (``POST /play/``, with a CSRF cookie and its token)
and waits for the socket's "paired" frame. Most join Americana for two, so a partner is usually
waiting; a few join pools of three and four or classic, where bots may complete the table. Every
person accepts bots, so each gets a table in the end.

Where they connect from: each person from an address of its own in 127.0.0.0/8 other than
127.0.0.1 (127.1.x.y; Linux routes the whole block to the loopback), which nginx budgets as it does
any browser's address (websocket handshakes, sockets open at once, page requests). One person
spends one handshake, one socket and one page request, far within those budgets, so the run sees
what real people would. From one address the budgets would not allow it (1,000 handshakes in a
minute is 17 a second, and 1,000 sockets open; nginx allows an address 5 a second and 50): where
those addresses cannot be bound (not Linux), or with ``--from-this-machine``, every person connects
from 127.0.0.1, which nginx budgets only when the site runs without ``UNLIMITED_ADDRESSES=127.0.0.1``
(set it for such a run), and the output says so.

It prints plain numbers: the time from a person's join (their ``POST /play/`` sent) to their
socket's "paired" frame (the table opened), p50 / p99, for the people whose partners were already
waiting (the last to arrive at a table of people only: the second of a pair) and for everyone; the
tables made; and the people seated twice, read from the database (must be 0). Also the time from the
join to its answer and from opening the socket to its first frame, to tell the pool's time from a
server's queue.

Two settings of the site for the run: the simulated people never open the tables they are given, so
with the default ``GONE_GRACE_SECONDS`` (30) bots stand in for them and play hundreds of matches at
once in the middle of the run, work that people who open their tables do not bring: set it longer
than the run. And ``CONN_MAX_AGE=0``: Django serves each ASGI request on a thread of its own, and with
persistent connections that request's PostgreSQL connection stays open until the garbage collector
gets to it (300 requests into one Daphne left 84 open), so 1,000 joins exhaust PostgreSQL's 100.

For example (a 2-core machine, ``manage.py prod --daphnes 2``, both settings above):
``--people 1000 --seconds 60`` saturates both cores, partner already waiting p50 634 ms, p99 3.4 s;
750 people: p50 174 ms, p99 692 ms; 500 people: p50 120 ms, p99 389 ms; nobody seated twice.
"""

import asyncio
import contextlib
import json
import random
import socket
import statistics
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import CommandError
from django.db.models import Count
from django.utils.crypto import get_random_string

from bench.guard import WritingBenchmark, bench_username
from bench.management.commands.loadbench import session_cookie
from social.models import PoolEntry
from tables.models import Seat, Table

MIX = (
    # (weight, game, players, target or match length)
    (85, "americana", 2, 101),
    (5, "americana", 3, 101),
    (5, "americana", 4, 101),
    (5, "classic", 2, "points8"),
)
"""The pools people join: Americana for two mostly, so a partner is usually waiting."""
CONNECT_TRIES = 5
HTTP_TIMEOUT = 60.0


def make_people(count: int, prefix: str) -> list:
    """``count`` new accounts, quickly: one insert, no password hashed (none can log in)."""
    users = get_user_model()
    return users.objects.bulk_create(
        users(username=f"{prefix}{index}", password=make_password(None)) for index in range(count)
    )


def csrf_secret() -> str:
    """A CSRF cookie's value, which Django also takes as the form's token (unmasked)."""
    return get_random_string(32)


def pool_form(*, game: str, players: int, length, fill_with_bots: bool, csrf: str) -> dict[str, str]:
    """``POST /play/``'s fields, as the pool's form sends them."""
    americana = game == "americana"
    fields = {
        "csrfmiddlewaretoken": csrf,
        "game": game,
        "players": str(players),
        # The form has both fields; the game's own is the one read.
        "target": str(length) if americana else "101",
        "match": "points8" if americana else str(length),
    }
    if fill_with_bots:
        fields["fill_with_bots"] = "on"
    return fields


@dataclass(frozen=True)
class Reply:
    status: int
    location: str


async def post_form(
    host: str,
    port: int,
    path: str,
    cookies: str,
    fields: dict[str, str],
    source: str | None = None,
    timeout: float = HTTP_TIMEOUT,
) -> Reply:
    """One HTTP/1.1 form POST on a connection of its own (from ``source``, an address of this machine);
    the status and where it redirects."""
    body = urlencode(fields).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: {cookies}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0) if source else None)
        try:
            writer.write(head.encode() + body)
            await writer.drain()
            response = await reader.read()
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
    lines = response.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    location = next(
        (line.split(":", 1)[1].strip() for line in lines[1:] if line.lower().startswith("location:")), ""
    )
    return Reply(status, location)


async def site_socket(base: str, cookies: str, source: str | None = None, tries: int = CONNECT_TRIES):
    """The pool's waiting page's socket (``/ws/me/?pool=1``) once it has sent its first frame (the
    counts): from then on the page hears of its table. A refused or dropped handshake is tried again,
    as a page does."""
    import websockets

    split = urlsplit(base)
    origin = f"http://{split.netloc}"
    options = {"local_addr": (source, 0)} if source else {}
    for attempt in range(tries):
        try:
            page = await websockets.connect(
                f"ws://{split.netloc}/ws/me/?pool=1",
                additional_headers={"Cookie": cookies, "Origin": origin},
                open_timeout=30,
                **options,
            )
        except (OSError, TimeoutError, websockets.exceptions.InvalidHandshake):
            await asyncio.sleep(0.5 * (attempt + 1))
            continue
        try:
            async with asyncio.timeout(30):
                await page.recv()
        except BaseException:
            await page.close()
            raise
        return page
    raise RuntimeError(f"Could not open the site's socket at {base}.")


async def paired_frame(page) -> tuple[float, str]:
    """Read ``page``'s frames until the pool's "paired": when it came (``time.time()``) and its link."""
    while True:
        frame = json.loads(await page.recv())
        if frame.get("kind") == "paired":
            return time.time(), frame["url"]


def sources_available() -> bool:
    """Whether this machine can connect from 127.1.x.y (Linux: the whole of 127.0.0.0/8 is loopback)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.1.0.1", 0))
        except OSError:
            return False
    return True


def source_of(index: int) -> str:
    """Person ``index``'s own address: 127.1.0.1, 127.1.0.2, ... (never 127.0.0.1)."""
    return f"127.1.{index // 250}.{index % 250 + 1}"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


@dataclass
class Person:
    index: int
    user_id: int
    cookies: str
    arrives: float
    """Seconds after the start."""
    game: str
    players: int
    length: object
    source: str | None
    opening: float = 0.0
    """``time.time()`` as the socket's handshake began."""
    joined: float = 0.0
    """``time.time()`` as the join was sent."""
    answered: float = 0.0
    """``time.time()`` as the join's answer came."""
    paired: float = 0.0
    url: str = ""
    error: str = ""


class Command(WritingBenchmark):
    help = "Simulated people joining the pairing pool over websockets; prints join -> table latency."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--url", default="http://127.0.0.1:8000", help="the site (nginx), http://host:port"
        )
        parser.add_argument("--people", type=int, default=1000)
        parser.add_argument("--seconds", type=float, default=60.0, help="over how long they arrive")
        parser.add_argument(
            "--wait",
            type=float,
            default=None,
            help="how long a person waits for a table (default: POOL_BOT_FILL_SECONDS + 15)",
        )
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--from-this-machine",
            action="store_true",
            help="connect every person from 127.0.0.1 (run the site with UNLIMITED_ADDRESSES=127.0.0.1)",
        )

    def handle(self, *args, url: str, people: int, seconds: float, seed: int, **options):
        split = urlsplit(url)
        if split.scheme != "http" or not split.port:
            raise CommandError("--url is http://host:port (the site, through nginx).")
        wait = options["wait"] if options["wait"] is not None else settings.POOL_BOT_FILL_SECONDS + 15
        spread = not options["from_this_machine"] and sources_available()
        rng = random.Random(seed)
        run = uuid.uuid4().hex[:6]
        users = make_people(people, bench_username(f"pair-{run}-"))
        weights = [weight for weight, *_pool in MIX]
        crowd = []
        for index, user in enumerate(users):
            _weight, game, players, length = rng.choices(MIX, weights)[0]
            crowd.append(
                Person(
                    index=index,
                    user_id=user.pk,
                    cookies=session_cookie(user),
                    arrives=seconds * index / people + rng.uniform(0, seconds / people),
                    game=game,
                    players=players,
                    length=length,
                    source=source_of(index) if spread else None,
                )
            )
        started = time.perf_counter()
        asyncio.run(self.run(url, split, crowd, wait))
        took = time.perf_counter() - started
        self.report(crowd, spread, seconds, took, wait)

    async def run(self, url: str, split, crowd: list[Person], wait: float) -> None:
        await asyncio.gather(*(self.person(url, split, person, wait) for person in crowd))

    async def person(self, url: str, split, person: Person, wait: float) -> None:
        await asyncio.sleep(person.arrives)
        csrf = csrf_secret()
        cookies = f"{person.cookies}; {settings.CSRF_COOKIE_NAME}={csrf}"
        person.opening = time.time()
        try:
            page = await site_socket(url, cookies, person.source)
        except Exception as error:
            person.error = f"socket: {error!r}"
            return
        async with page:
            listening = asyncio.ensure_future(paired_frame(page))
            person.joined = time.time()
            fields = pool_form(
                game=person.game,
                players=person.players,
                length=person.length,
                fill_with_bots=True,
                csrf=csrf,
            )
            try:
                reply = await post_form(split.hostname, split.port, "/play/", cookies, fields, person.source)
            except Exception as error:
                person.error = f"join: {error!r}"
                listening.cancel()
                return
            person.answered = time.time()
            if reply.status != 302:
                person.error = f"join answered {reply.status}"
                listening.cancel()
                return
            try:
                async with asyncio.timeout(wait):
                    person.paired, person.url = await listening
            except TimeoutError:
                person.error = "no table"
            except Exception as error:
                person.error = f"socket: {error!r}"

    def report(self, crowd: list[Person], spread: bool, seconds: float, took: float, wait: float) -> None:
        ids = [person.user_id for person in crowd]
        entries = {
            entry.user_id: entry
            for entry in PoolEntry.objects.filter(user_id__in=ids).only(
                "user_id", "joined_at", "paired_at", "table_id"
            )
        }
        seats = list(
            Seat.objects.filter(table__seats__user_id__in=ids).distinct().values("table_id", "user_id")
        )
        tables: dict[int, list[int | None]] = {}
        for seat in seats:
            tables.setdefault(seat["table_id"], []).append(seat["user_id"])
        twice = (
            Seat.objects.filter(user_id__in=ids)
            .values("user_id")
            .annotate(times=Count("id"))
            .filter(times__gt=1)
            .count()
        )
        # The last to arrive at a table of people only found everyone else there already.
        last_in = set()
        for people in tables.values():
            if None in people or any(user_id not in entries for user_id in people):
                continue
            last_in.add(max(people, key=lambda user_id: entries[user_id].joined_at))
        by_id = {person.user_id: person for person in crowd}
        wrong_table = sum(
            1
            for user_id, entry in entries.items()
            if by_id[user_id].url and by_id[user_id].url != f"/tables/{entry.table_id}/"
        )
        paired = [person for person in crowd if person.paired]
        everyone = [person.paired - person.joined for person in paired]
        waiting = [person.paired - person.joined for person in paired if person.user_id in last_in]
        bots_completed = sum(1 for people in tables.values() if None in people)
        made = Table.objects.filter(pk__in=list(tables)).count()
        errors: dict[str, int] = {}
        for person in crowd:
            if person.error:
                errors[person.error] = errors.get(person.error, 0) + 1
        where = (
            "an address of their own each, 127.1.x.y, which nginx budgets as any browser's"
            if spread
            else "127.0.0.1, which nginx does not budget if the site has UNLIMITED_ADDRESSES=127.0.0.1"
        )
        write = self.stdout.write
        write(f"people: {len(crowd)}, arriving over {seconds:g} s (the run took {took:.0f} s), from {where}")
        write(f"joined: {sum(1 for person in crowd if person.joined)}")
        write(f"paired (frame received): {len(paired)}")
        write(f"not paired within {wait:g} s or failed: {len(crowd) - len(paired)}")
        for error, count in sorted(errors.items()):
            write(f"  {count} x {error}")
        write(f"tables made: {made} ({bots_completed} completed by bots)")
        write(f"people seated twice: {twice}")
        write(f"frames naming another table than the person's: {wrong_table}")
        answered = [person.answered - person.joined for person in crowd if person.answered]
        opened = [person.joined - person.opening for person in crowd if person.joined]
        for label, values in (
            ("join -> table opened, partner already waiting", waiting),
            ("join -> table opened, everyone", everyone),
            ("join -> its answer (POST /play/)", answered),
            ("socket opened -> its first frame", opened),
        ):
            if values:
                write(
                    f"{label}: p50 {statistics.median(values) * 1000:.0f} ms, "
                    f"p99 {percentile(values, 0.99) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms "
                    f"({len(values)} people)"
                )
