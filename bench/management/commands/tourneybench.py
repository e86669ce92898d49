"""``manage.py tourneybench``: a crowd of simulated people playing one arena through the site's pages.

Run it against a running site (``manage.py prod``: nginx, Daphne processes, a Celery worker with beat,
whose tick starts the arena and pairs it) that shares this process's ``DATABASE_URL``, ``REDIS_URL``,
``CHANNELS_PREFIX`` and ``SECRET_KEY``. It makes ``--people`` established ``bench-`` accounts and a
public arena of ``--seats`` a table (classic, one deal a match by default: a few dozen moves, where
Americana to 101 takes hundreds), starting once everyone has joined. Each person, as a browser on the
tournament's page does and from an address of their own as pairbench's people: opens the page's socket
(``/ws/tournaments/<id>/``, through ``--url``) and keeps it open (its heartbeat keeps them in), joins
with the page's button (``POST /tournaments/<id>/join/``, with a CSRF cookie and its token), and, each
time the socket's ``go`` frame sends them to a table, opens that table's socket and plays the moves its
page offers, a table making one move every ``--move-seconds`` or so, until the match shows over; then
waits for the next ``go``, until the arena ends. One more account, in no tournament, watches the page
and counts its ``live`` frames (the standing, rendered once per process and language).

It prints: the time from a match's end (its last move sent) to the person's next ``go`` frame, p50 /
p99 (goal: p99 3 s or less; the ``go`` often comes before the table's own page shows the match over),
and the same from the database's stamps (the match finished -> the next table made); the arena's start
(everyone waiting at once) from its ``started_at`` to the ``go`` of the first
``TOURNAMENT_TABLES_AT_ONCE`` tables and of every first table; the watcher's standings pushes a
second; each ``--cpu`` process's CPU; whether anybody sat at two tables at once (from the ``Pairing``
rows: each person's tables' times never overlap); and, after the run, the pairing step timed in this
process on ``--crowd`` people waiting at once in an arena of their own: its decision (reads, then
``arithmetic.arena_tables``), and the seating to the news of its first tables and of all of them.
"""

import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import time
import uuid
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import CommandError
from django.urls import reverse

from bench import tourney
from bench.guard import WritingBenchmark, bench_username
from bench.management.commands.loadbench import VERSION, CpuMeter, choose, hand_shown, session_cookie
from bench.management.commands.pairbench import (
    csrf_secret,
    percentile,
    post_form,
    source_of,
    sources_available,
)
from tables.models import Game
from tournaments.models import Entry, Pairing, Tournament

MATCH_OVER = 'data-testid="match-over"'
TABLE_URL = re.compile(r"/tables/(\d+)/")
CONNECT_TRIES = 5
LEAD_SECONDS = 5.0
"""Between the last join and the arena's start."""
LAST_SEAT_WAIT = 15.0
"""How long after the arena's end a person still waits for a table (one made just before it), or plays
on at one (its match scores nothing by then; one whose other seat failed is played by the clock's
stand-in, slowly)."""
WATCHER_SOURCE = "127.2.0.1"
"""The watcher's own address, apart from the crowd's 127.1.x.y."""


@dataclass
class Person:
    index: int
    user_id: int
    cookies: str
    source: str | None
    seats: asyncio.Queue = field(default_factory=asyncio.Queue)
    """(when heard of, table id) for each ``go`` frame of the tournament's socket."""
    first_seat: tuple[float, int] | None = None
    """The first ``go``: when heard (``time.time()``), which table."""
    ended: float = 0.0
    """``time.time()`` as the move that ended their last match was sent; 0 before their first."""
    waits: list[float] = field(default_factory=list)
    """Seconds from each match's end to the ``go`` to the next table."""
    matches: int = 0
    cut: bool = False
    reopened: int = 0
    """Sockets (the tournament's, a table's) the site closed and the person opened again."""
    """Left at a table whose match was not over ``LAST_SEAT_WAIT`` after the arena's end."""
    error: str = ""


@dataclass
class Pace:
    """A table's moves, spaced ``seconds`` or so apart by whichever seat is to act."""

    seconds: float
    last: float = 0.0
    sent_at: float = 0.0
    """``time.time()`` as the table's latest move was sent: the last one ends the match."""

    async def wait(self, rng: random.Random) -> None:
        delay = self.last + self.seconds * rng.uniform(0.5, 1.5) - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        self.last = time.perf_counter()


class Command(WritingBenchmark):
    help = "Simulated people playing one arena through its pages; prints match end -> next seat and more."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--url", default="http://127.0.0.1:8000", help="the site (nginx), http://host:port"
        )
        parser.add_argument("--people", type=int, default=1000)
        parser.add_argument("--seats", type=int, choices=(2, 3, 4), default=2)
        parser.add_argument("--game", choices=Game.values, default=Game.CLASSIC)
        parser.add_argument(
            "--options",
            default='{"match": "games1"}',
            help="the match options as JSON (default: classic, one deal)",
        )
        parser.add_argument("--arena-seconds", type=float, default=360.0, help="how long the arena lasts")
        parser.add_argument("--join-seconds", type=float, default=20.0, help="over how long people join")
        parser.add_argument(
            "--move-seconds", type=float, default=3.0, help="a table's time between moves, on average"
        )
        parser.add_argument(
            "--crowd",
            type=int,
            default=1000,
            help="people waiting at once for the timed pairing step (0: none)",
        )
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--cpu",
            action="append",
            type=int,
            default=[],
            metavar="PID",
            help="a process (with its children) whose CPU to report, e.g. each Daphne and the worker",
        )
        parser.add_argument(
            "--from-this-machine",
            action="store_true",
            help="connect every person from 127.0.0.1 (run the site with UNLIMITED_ADDRESSES=127.0.0.1)",
        )

    def handle(self, *args, url: str, people: int, seats: int, game: str, **options):
        split = urlsplit(url)
        if split.scheme != "http" or not split.port:
            raise CommandError("--url is http://host:port (the site, through nginx).")
        try:
            match_options = {**json.loads(options["options"]), "players": seats}
        except ValueError as error:
            raise CommandError(f"--options: {error}") from None
        spread = not options["from_this_machine"] and sources_available()
        run = uuid.uuid4().hex[:6]
        *users, watcher = tourney.make_established_people(people + 1, bench_username(f"tourney-{run}-"))
        crowd = [
            Person(index, user.pk, session_cookie(user), source_of(index) if spread else None)
            for index, user in enumerate(users)
        ]
        arena = tourney.make_arena(
            name=f"Benchmark arena {run}",
            game=game,
            options=match_options,
            turn_clock=tourney.SHORTEST_CLOCK,
            starts_in=options["join_seconds"] + LEAD_SECONDS,
            seconds=options["arena_seconds"],
            most=people,
        )
        cpu = CpuMeter([*options["cpu"], os.getpid()] if options["cpu"] else [])
        pushes: list[float] = []
        watching = (session_cookie(watcher), WATCHER_SOURCE if spread else None)
        started = time.perf_counter()
        asyncio.run(self.run(split, arena, crowd, watching, pushes, cpu, options))
        cpu.stop()
        arena.refresh_from_db()
        measured = time.time() - arena.starts_at.timestamp()
        took = time.perf_counter() - started
        by_person = tourney.seatings(arena.pk)
        write = self.stdout.write
        where = "an address of their own each (127.1.x.y)" if spread else "127.0.0.1"
        write(
            f"people: {people} at {seats} seats, {game} {json.dumps(match_options)}, a move every "
            f"~{options['move_seconds']:g} s a table, arena {options['arena_seconds']:g} s "
            f"(the run took {took:.0f} s), from {where}"
        )
        write(
            f"joined through the page's POST: {Entry.objects.filter(tournament=arena).count()} of {people}; "
            "each kept the tournament's socket open and went to each table by its go frame"
        )
        write(f"tables made: {Pairing.objects.filter(tournament=arena).count()}")
        write(f"matches played to their end by the crowd: {sum(person.matches for person in crowd)}")
        cut = sum(person.cut for person in crowd)
        write(f"people left at a table still playing after the arena's end: {cut}")
        write(f"sockets the site closed, opened again: {sum(person.reopened for person in crowd)}")
        errors: dict[str, int] = {}
        for person in crowd:
            if person.error:
                errors[person.error] = errors.get(person.error, 0) + 1
        for error, count in sorted(errors.items()):
            write(f"  {count} x {error}")
        waits = [wait for person in crowd for wait in person.waits]
        self.latency("match end (last move sent) -> next go frame", waits)
        self.latency("match finished -> next table made (database)", tourney.waits_for_next_table(by_person))
        self.start_wave(arena, crowd)
        self.pushes(arena, pushes)
        write(f"people at two tables at once: {len(tourney.at_two_tables(by_person))}")
        for name, seconds in cpu.used().items():
            share = seconds / max(1e-9, measured) * 100
            write(f"CPU, {name}: {seconds:.1f} s ({share:.0f}% of a core from the arena's start on)")
        if options["crowd"]:
            decision, seated = tourney.time_pairing(
                people=options["crowd"],
                seats=seats,
                game=game,
                options=match_options,
                prefix=bench_username(f"tourney-{run}-crowd-"),
            )
            reads, grouped = decision.reads * 1000, decision.arithmetic * 1000
            write(
                f"pairing step, decision: {decision.waiting} waiting -> {decision.tables} tables in "
                f"{reads + grouped:.0f} ms (reads {reads:.0f} ms, arithmetic.arena_tables {grouped:.1f} ms)"
            )
            write(
                f"pairing step, seating {seated.tables} tables "
                f"({settings.TOURNAMENT_TABLES_AT_ONCE} a transaction), news heard: "
                f"first {seconds_text(seated.first)}, all {seconds_text(seated.whole)}"
            )

    def latency(self, label: str, values: list[float]) -> None:
        if not values:
            self.stdout.write(f"{label}: no samples")
            return
        p50, p99 = statistics.median(values) * 1000, percentile(values, 0.99) * 1000
        self.stdout.write(
            f"{label}: p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {max(values) * 1000:.0f} ms "
            f"({len(values)} samples)"
        )

    def start_wave(self, arena: Tournament, crowd: list[Person]) -> None:
        """The arena's start, when everyone waits at once: its ``started_at`` to the ``go`` frames of the
        first tables (one transaction's) and of everyone's first table."""
        if arena.started_at is None:
            self.stdout.write("the arena's start: it did not start")
            return
        first_heard: dict[int, float] = {}
        for person in crowd:
            if person.first_seat:
                heard, table_id = person.first_seat
                first_heard[table_id] = min(heard, first_heard.get(table_id, heard))
        if not first_heard:
            self.stdout.write("the arena's start: nobody was seated")
            return
        ordered = sorted(first_heard.values())
        start = arena.started_at.timestamp()
        batch = min(len(ordered), settings.TOURNAMENT_TABLES_AT_ONCE)
        self.stdout.write(
            f"the arena's start, {len(ordered)} first tables: go of the first {batch} heard "
            f"{(ordered[batch - 1] - start) * 1000:.0f} ms after its start, of all "
            f"{(ordered[-1] - start) * 1000:.0f} ms"
        )

    def pushes(self, arena: Tournament, pushes: list[float]) -> None:
        start, end = arena.starts_at.timestamp(), arena.ends_at.timestamp()
        during = [moment for moment in pushes if start <= moment <= end]
        per_second: dict[int, int] = {}
        for moment in during:
            per_second[int(moment)] = per_second.get(int(moment), 0) + 1
        self.stdout.write(
            f"standings pushes to a watching page: {len(during) / max(1e-9, end - start):.2f}/s, at most "
            f"{max(per_second.values(), default=0)} in a second (at most one every "
            f"{settings.TOURNAMENT_PUSH_SECONDS:g} s by design)"
        )

    async def run(self, split, arena, crowd: list[Person], watching, pushes: list[float], cpu, options):
        origin = f"http://{split.netloc}"
        page = reverse("tournaments:detail", args=[arena.pk])
        watcher = await open_socket(split, f"/ws/tournaments/{arena.pk}/", *watching)
        counting = asyncio.ensure_future(count_pushes(watcher, pushes))
        measuring = asyncio.ensure_future(self.measure_from(arena.starts_at.timestamp(), cpu))
        tables: dict[int, Pace] = {}
        try:
            await asyncio.gather(
                *(self.person(split, origin, page, arena, person, tables, options) for person in crowd)
            )
        finally:
            for task in (counting, measuring):
                task.cancel()
            await watcher.close()

    @staticmethod
    async def measure_from(start: float, cpu) -> None:
        await asyncio.sleep(max(0.0, start - time.time()))
        cpu.start()

    async def person(self, split, origin: str, page: str, arena, person: Person, tables, options) -> None:
        rng = random.Random(options["seed"] * 100_003 + person.index)
        await asyncio.sleep(options["join_seconds"] * rng.random())
        csrf = csrf_secret()
        cookies = f"{person.cookies}; {settings.CSRF_COOKIE_NAME}={csrf}"
        try:
            socket = await open_socket(split, f"/ws/tournaments/{arena.pk}/", cookies, person.source)
        except Exception as error:
            person.error = f"tournament socket: {type(error).__name__}"
            return
        reopen = partial(open_socket, split, f"/ws/tournaments/{arena.pk}/", cookies, person.source)
        async with socket:
            hearing = asyncio.ensure_future(hear_go(socket, reopen, person))
            try:
                reply = await post_form(
                    split.hostname,
                    split.port,
                    f"{page}join/",
                    cookies,
                    {"csrfmiddlewaretoken": csrf},
                    person.source,
                )
            except Exception as error:
                person.error = f"join: {type(error).__name__}"
                hearing.cancel()
                return
            if reply.status != 302:
                person.error = f"join answered {reply.status}"
                hearing.cancel()
                return
            try:
                await self.play_arena(split, origin, arena, person, tables, options, rng)
            finally:
                hearing.cancel()

    async def play_arena(self, split, origin, arena, person: Person, tables, options, rng) -> None:
        """Each table the page sends the person to, played to its end, until the arena is over."""
        played: set[int] = set()
        given_up = arena.ends_at.timestamp() + LAST_SEAT_WAIT
        while True:
            try:
                async with asyncio.timeout(max(0.0, given_up - time.time())):
                    heard, table_id = await person.seats.get()
            except TimeoutError:
                return
            if table_id in played:  # the heartbeat's go to the table just played, heard late
                continue
            played.add(table_id)
            if person.first_seat is None:
                person.first_seat = (heard, table_id)
            if person.ended:
                person.waits.append(heard - person.ended)
            pace = tables.setdefault(table_id, Pace(options["move_seconds"]))
            try:
                async with asyncio.timeout(max(0.0, given_up - time.time())):
                    await self.play(split, origin, person, table_id, pace, rng)
            except TimeoutError:
                person.cut = True
                return
            except Exception as error:
                person.error = f"table: {type(error).__name__}"
                return

    @staticmethod
    async def play(split, origin: str, person: Person, table_id: int, pace: Pace, rng) -> None:
        """Open the table's socket and play what the page offers until the match shows over. A socket the
        site closes (its process out of touch with Redis, say) is opened again, as the page does."""
        import websockets

        sent = -1
        for _attempt in range(CONNECT_TRIES):
            socket = await open_socket(split, f"/ws/tables/{table_id}/", person.cookies, person.source)
            hand = ""
            try:
                async with socket:
                    while True:
                        frame = await socket.recv()
                        if MATCH_OVER in frame:
                            person.ended = pace.sent_at
                            person.matches += 1
                            return
                        hand = hand_shown(hand, frame)
                        found = VERSION.search(hand)
                        if not found:
                            continue
                        version = int(found.group(1))
                        move = choose(hand, rng)
                        if move is None or version <= sent:
                            continue
                        sent = version
                        await pace.wait(rng)
                        pace.sent_at = time.time()
                        with contextlib.suppress(websockets.exceptions.ConnectionClosedOK):
                            await socket.send(json.dumps({"version": version, **move}))
            except websockets.exceptions.ConnectionClosedError:
                person.reopened += 1
        raise ConnectionError(f"table {table_id} closed {CONNECT_TRIES} times")


def seconds_text(seconds: float | None) -> str:
    return "not heard" if seconds is None else f"{seconds * 1000:.0f} ms"


async def open_socket(split, path: str, cookies: str, source: str | None):
    """A page's websocket through the site, from ``source`` (an address of this machine); a refused or
    dropped handshake is tried again, as a page does."""
    import websockets

    options = {"local_addr": (source, 0)} if source else {}
    for attempt in range(CONNECT_TRIES):
        try:
            return await websockets.connect(
                f"ws://{split.netloc}{path}",
                additional_headers={"Cookie": cookies, "Origin": f"http://{split.netloc}"},
                open_timeout=30,
                max_size=None,
                **options,
            )
        except (OSError, TimeoutError, websockets.exceptions.InvalidHandshake):
            await asyncio.sleep(0.5 * (attempt + 1))
    raise ConnectionError(path)


async def hear_go(socket, reopen, person: Person) -> None:
    """The tournament page's frames: each ``go`` queued for the person (its ``live`` frames, the standing,
    read and let go unparsed: a crowd's worth of them every push would cost this process more than the
    site). A socket the site closes is opened again (``reopen``), as the page does."""
    import websockets

    try:
        while True:
            try:
                async for frame in socket:
                    heard = time.time()
                    if frame.startswith('{"kind": "go"') and (found := TABLE_URL.search(frame)):
                        person.seats.put_nowait((heard, int(found.group(1))))
                return
            except websockets.exceptions.ConnectionClosedError:
                person.reopened += 1
                socket = await reopen()
    finally:
        await socket.close()


async def count_pushes(socket, pushes: list[float]) -> None:
    """When each ``live`` frame reached the watching page."""
    async for frame in socket:
        if json.loads(frame).get("kind") == "live":
            pushes.append(time.time())
