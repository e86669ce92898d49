"""``manage.py tourneybench``: a crowd of simulated people playing one arena over real websockets.

Run it against a running site (``manage.py prod``: nginx, Daphne processes, a Celery worker with beat,
whose tick starts the arena and pairs it) that shares this process's ``DATABASE_URL``, ``REDIS_URL``,
``CHANNELS_PREFIX`` and ``SECRET_KEY``. It makes ``--people`` established ``bench-`` accounts and a
public arena of ``--seats`` a table (classic, one deal a match by default: a few dozen moves, where
Americana to 101 takes hundreds), starting once everyone has joined. Each person joins, keeps the
tournament page's heartbeat, and, each time the arena seats them, opens their table's socket
(``/ws/tables/<id>/``, through ``--url``, from an address of their own as pairbench's people do) and
plays the moves their page offers, a table making one move every ``--move-seconds`` or so, until the
match is over; then they wait for the next table, until the arena ends.

The tournament pages (the join view, ``/ws/tournaments/<id>/``) are not part of the site yet: each
person joins through ``services.tournament_join`` in this process, the heartbeat is
``services.tournament_seen`` for the whole crowd every ``TOURNAMENT_SEEN_EVERY_SECONDS``, and the news a
page would hear (``tournament.seated``, ``tournament.changed``) is read from the tournament's group on
the channel layer here, as a page's consumer would receive it.

It prints: the time from a match's end (its last move sent) to the person hearing of their next table,
p50 / p99 (goal: p99 3 s or less), and the same from the database's stamps (the match finished -> the
next table made); the standings changes announced per second; each ``--cpu`` process's CPU; whether
anybody sat at two tables at once (from the ``Pairing`` rows: each person's tables' times never
overlap); and, after the run, the pairing step timed in this process on ``--crowd`` people waiting at
once: ``services.arena_pair`` whole (its reads, its arithmetic, every table made) and
``arithmetic.arena_tables`` alone.
"""

import asyncio
import contextlib
import json
import os
import random
import statistics
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.management.base import CommandError

from bench import tourney
from bench.guard import WritingBenchmark, bench_username
from bench.management.commands.loadbench import VERSION, CpuMeter, choose, hand_shown, session_cookie
from bench.management.commands.pairbench import percentile, source_of, sources_available
from tables.models import Game
from tournaments import services
from tournaments.events import tournament_group
from tournaments.models import Pairing

MATCH_OVER = 'data-testid="match-over"'
CONNECT_TRIES = 5
LEAD_SECONDS = 5.0
"""Between the last join and the arena's start."""
LAST_SEAT_WAIT = 15.0
"""How long after the arena's end a person still waits for a table (one made just before it)."""


@dataclass
class Person:
    index: int
    user: object
    user_id: int
    cookies: str
    source: str | None
    seats: asyncio.Queue = field(default_factory=asyncio.Queue)
    """(when heard of, table id), as the page would hear them."""
    ended: float = 0.0
    """``time.time()`` as the move that ended their last match was sent; 0 before their first."""
    waits: list[float] = field(default_factory=list)
    """Seconds from each match's end to hearing of the next table."""
    matches: int = 0
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


@dataclass
class News:
    changed: list[float] = field(default_factory=list)
    """When each ``tournament.changed`` was heard."""
    seated: int = 0


class Command(WritingBenchmark):
    help = "Simulated people playing one arena over websockets; prints match end -> next seat and more."

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
        users = tourney.make_established_people(people, bench_username(f"tourney-{run}-"))
        crowd = [
            Person(index, user, user.pk, session_cookie(user), source_of(index) if spread else None)
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
        news = News()
        started = time.perf_counter()
        asyncio.run(self.run(f"ws://{split.netloc}", url, arena, crowd, news, cpu, options))
        cpu.stop()
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
        write("joined through services.tournament_join, heartbeat services.tournament_seen (no pages yet)")
        write(f"tables made: {Pairing.objects.filter(tournament=arena).count()}")
        write(f"matches played to their end by the crowd: {sum(person.matches for person in crowd)}")
        errors: dict[str, int] = {}
        for person in crowd:
            if person.error:
                errors[person.error] = errors.get(person.error, 0) + 1
        for error, count in sorted(errors.items()):
            write(f"  {count} x {error}")
        self.latency("match end -> next table heard of", [wait for person in crowd for wait in person.waits])
        self.latency("match finished -> next table made (database)", tourney.waits_for_next_table(by_person))
        self.pushes(arena, news)
        write(f"people at two tables at once: {len(tourney.at_two_tables(by_person))}")
        for name, seconds in cpu.used().items():
            share = seconds / max(1e-9, measured) * 100
            write(f"CPU, {name}: {seconds:.1f} s ({share:.0f}% of a core from the arena's start on)")
        if options["crowd"]:
            timed = tourney.time_pairing(
                people=options["crowd"],
                seats=seats,
                game=game,
                options=match_options,
                prefix=bench_username(f"tourney-{run}-crowd-"),
            )
            each = timed.whole * 1000 / max(1, timed.tables)
            write(
                f"pairing step, {timed.waiting} waiting -> {timed.tables} tables: services.arena_pair "
                f"{timed.whole * 1000:.0f} ms ({each:.1f} ms a table made); its reads "
                f"{timed.reads * 1000:.0f} ms; arithmetic.arena_tables {timed.arithmetic * 1000:.1f} ms"
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

    def pushes(self, arena, news: News) -> None:
        start, end = arena.starts_at.timestamp(), arena.ends_at.timestamp()
        during = [moment for moment in news.changed if start <= moment <= end]
        per_second: dict[int, int] = {}
        for moment in during:
            per_second[int(moment)] = per_second.get(int(moment), 0) + 1
        self.stdout.write(
            f"standings changes announced: {len(during) / max(1e-9, end - start):.1f}/s, at most "
            f"{max(per_second.values(), default=0)} in a second (a page renders at most one every "
            f"{settings.TOURNAMENT_PUSH_SECONDS:g} s)"
        )

    async def run(
        self, ws_base: str, origin: str, arena, crowd: list[Person], news: News, cpu, options
    ) -> None:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(tournament_group(arena.pk), channel)
        by_id = {person.user_id: person for person in crowd}
        listening = asyncio.ensure_future(self.listen(layer, channel, by_id, news))
        beating = asyncio.ensure_future(self.heartbeat(arena.pk, list(by_id)))
        measuring = asyncio.ensure_future(self.measure_from(arena.starts_at.timestamp(), cpu))
        tables: dict[int, Pace] = {}
        try:
            await asyncio.gather(
                *(self.person(ws_base, origin, arena, person, tables, options) for person in crowd)
            )
        finally:
            for task in (listening, beating, measuring):
                task.cancel()
            await layer.group_discard(tournament_group(arena.pk), channel)

    @staticmethod
    async def listen(layer, channel: str, by_id: dict[int, Person], news: News) -> None:
        """The tournament's news, as a page's consumer hears it."""
        while True:
            message = await layer.receive(channel)
            heard = time.time()
            if message["type"] == "tournament.changed":
                news.changed.append(heard)
            elif message["type"] == "tournament.seated":
                for user_id, table_id in message["seats"].items():
                    if person := by_id.get(int(user_id)):
                        news.seated += 1
                        person.seats.put_nowait((heard, table_id))

    @staticmethod
    async def heartbeat(tournament_id: int, user_ids: list[int]) -> None:
        """Every page's heartbeat, once for the crowd, as a process does for its pages."""
        seen = sync_to_async(services.tournament_seen, thread_sensitive=False)
        while True:
            await seen(tournament_id=tournament_id, user_ids=user_ids)
            await asyncio.sleep(settings.TOURNAMENT_SEEN_EVERY_SECONDS)

    @staticmethod
    async def measure_from(start: float, cpu) -> None:
        await asyncio.sleep(max(0.0, start - time.time()))
        cpu.start()

    async def person(
        self, ws_base: str, origin: str, arena, person: Person, tables: dict[int, Pace], options
    ):
        rng = random.Random(options["seed"] * 100_003 + person.index)
        await asyncio.sleep(options["join_seconds"] * rng.random())
        join = sync_to_async(services.tournament_join, thread_sensitive=False)
        try:
            await join(user=person.user, tournament_id=arena.pk)
        except Exception as error:
            person.error = f"join: {error!r}"
            return
        ends = arena.ends_at.timestamp()
        while True:
            try:
                async with asyncio.timeout(max(0.0, ends - time.time()) + LAST_SEAT_WAIT):
                    heard, table_id = await person.seats.get()
            except TimeoutError:
                return
            if person.ended:
                person.waits.append(heard - person.ended)
            pace = tables.setdefault(table_id, Pace(options["move_seconds"]))
            try:
                await self.play(ws_base, origin, person, table_id, pace, rng)
            except Exception as error:
                person.error = f"table: {type(error).__name__}"
                return

    @staticmethod
    async def play(ws_base: str, origin: str, person: Person, table_id: int, pace: Pace, rng) -> None:
        """Open the table's socket and play what the page offers until the match shows over."""
        import websockets

        options = {"local_addr": (person.source, 0)} if person.source else {}
        for attempt in range(CONNECT_TRIES):
            try:
                socket = await websockets.connect(
                    f"{ws_base}/ws/tables/{table_id}/",
                    additional_headers={"Cookie": person.cookies, "Origin": origin},
                    open_timeout=30,
                    **options,
                )
                break
            except (OSError, TimeoutError, websockets.exceptions.InvalidHandshake):
                await asyncio.sleep(0.5 * (attempt + 1))
        else:
            raise ConnectionError(f"table {table_id}")
        async with socket:
            hand, sent = "", -1
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
