"""``manage.py loadbench``: many tables of simulated players over real websockets.

Run it against a running site (Daphne + workers + PostgreSQL + Redis) that shares this
process's ``DATABASE_URL``: it seats simulated people at 4-player tables, opens one
websocket per seat, and has every table make about one move per second, each move
chosen from what that seat's page offers (a card that is not dimmed, else a button).
It prints moves per second and the time from a move being sent to every seat of the
table having received the new version (p50 / p99). Numbers, not a test.
"""

import asyncio
import contextlib
import csv
import json
import math
import os
import random
import re
import statistics
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore

from bench.guard import WritingBenchmark, bench_username
from gameplay import services as gameplay_services
from tables import services as table_services
from tables.models import TurnClock

VERSION = re.compile(r'name="version" value="(\d+)"')
PLAYABLE = re.compile(
    r'<label[^>]* class="hand-card">\s*<input type="radio" name="card" value="(\w+)"([^>]*data-seven)?'
)
CONNECT_SPACING = 0.01
"""Seconds between two seats' connections: a real crowd does not arrive in one millisecond."""
LAG_PROBE = 0.05
"""How often the load generator checks how late its own event loop runs."""
CONNECTED_WITHIN = 60.0
"""A seat not sent its table this long after connecting fails the run."""
BUTTON = re.compile(r'name="type" value="(\w+)"')
HAND = re.compile(r'<form id="hand-area".*?</form>', re.DOTALL)
TURN = re.compile(r'<p id="turn".*?</p>', re.DOTALL)


def session_cookie(user) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def make_tables(count: int, game: str, turn_clock: int = 0) -> list[tuple[int, list[str]]]:
    """``count`` started 4-player tables of people, with ``turn_clock`` seconds a turn (0: none);
    (table id, a session cookie per seat)."""
    run = uuid.uuid4().hex[:6]
    users = get_user_model().objects
    tables = []
    for index in range(count):
        people = [users.create_user(bench_username(f"load-{run}-{index}-{seat}")) for seat in range(4)]
        table = gameplay_services.table_create(
            host=people[0], game=game, options={"players": 4}, turn_clock=turn_clock, is_private=True
        )
        for person in people[1:]:
            table_services.seat_take(table_id=table.pk, user=person, token=table.invite_token)
        tables.append((table.pk, [session_cookie(person) for person in people]))
    return tables


def hand_shown(hand: str, frame: str) -> str:
    """The hand a page shows after ``frame``, as htmx swaps it in: the frame's hand when it has one, else
    the hand shown with the frame's turn line (whose turn it is, the version), sent alone when nothing
    else of the hand changed."""
    if found := HAND.search(frame):
        return found.group(0)
    if hand and (turn := TURN.search(frame)):
        return TURN.sub(lambda _line: turn.group(0), hand, count=1)
    return hand


def choose(hand: str, rng: random.Random) -> dict | None:
    """A move this seat's page offers in its ``hand``, or None when it is not this seat's turn."""
    if 'class="me-line is-to-act"' not in hand:
        return None
    buttons = BUTTON.findall(hand)
    cards = PLAYABLE.findall(hand)
    if cards and "play" in buttons:
        card, names_suit = rng.choice(cards)  # the page marks a card that names a suit (a seven)
        return {"type": "play", "card": card, **({"suit": "H"} if names_suit else {})}
    others = [b for b in buttons if b not in ("play", "back")]
    return {"type": rng.choice(others)} if others else None


class Table:
    def __init__(self, table_id: int, cookies: list[str]) -> None:
        self.table_id = table_id
        self.cookies = cookies
        self.version = -1
        self.seen: dict[int, set[int]] = {}
        self.sent_at: dict[int, float] = {}
        self.latencies: list[tuple[float, float]] = []
        """(when the move was sent, how long until every seat had it)"""
        self.last_move = 0.0

    def received(self, seat: int, version: int) -> None:
        seats = self.seen.setdefault(version, set())
        seats.add(seat)
        if len(seats) == len(self.cookies) and version in self.sent_at:
            sent = self.sent_at.pop(version)
            self.latencies.append((sent, time.perf_counter() - sent))


async def connect(base: str, table: Table, seat: int, origin: str, delay: float):
    """Open a seat's websocket, a little after the others (a real crowd does not arrive in one
    millisecond), retrying a refused handshake."""
    import websockets

    await asyncio.sleep(delay)
    headers = {"Cookie": table.cookies[seat], "Origin": origin}
    for attempt in range(5):
        try:
            return await websockets.connect(
                f"{base}/ws/tables/{table.table_id}/", additional_headers=headers, open_timeout=30
            )
        except (
            OSError,
            websockets.exceptions.InvalidMessage,
            websockets.exceptions.InvalidStatus,
            TimeoutError,
        ):
            # Refused or dropped while the servers are saturated (nginx answers 502): a page retries too.
            await asyncio.sleep(0.5 * (attempt + 1))
    raise RuntimeError(f"Could not connect seat {seat} of table {table.table_id}.")


class Clock:
    """The run's timeline: the warm-up starts once every seat is connected and has its table (a crowd
    of connections arriving at once is not the steady play being measured), the measurement after it."""

    def __init__(self, seats: int, warmup: float, seconds: float) -> None:
        self.waiting = seats
        self.warmup, self.seconds = warmup, seconds
        self.everyone_in = asyncio.Event()
        self.connected_after = 0.0
        self.measured_from = math.inf
        self.deadline = math.inf

    def seat_in(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.everyone_in.set()

    async def start(self, started: float) -> None:
        await self.everyone_in.wait()
        self.connected_after = time.perf_counter() - started
        self.measured_from = time.perf_counter() + self.warmup
        self.deadline = self.measured_from + self.seconds
        await asyncio.sleep(self.warmup)


async def play_seat(
    base: str, origin: str, table: Table, seat: int, clock: Clock, rate: float, delay: float
) -> None:
    rng = random.Random(table.table_id * 10 + seat)
    async with await connect(base, table, seat, origin, delay) as socket:
        first, hand = True, ""
        while time.perf_counter() < clock.deadline:
            try:
                frame = await asyncio.wait_for(
                    socket.recv(),
                    timeout=min(CONNECTED_WITHIN, max(0.1, clock.deadline - time.perf_counter())),
                )
            except TimeoutError:
                if first:
                    raise RuntimeError(
                        f"Seat {seat} of table {table.table_id} was never sent its table."
                    ) from None
                continue
            if first:
                first = False
                clock.seat_in()
            shown = hand_shown(hand, frame)
            found = VERSION.search(shown) if shown != hand else None
            hand = shown
            if not found:
                continue
            version = int(found.group(1))
            table.received(seat, version)
            move = choose(hand, rng)
            if move is None or version <= table.version:
                continue
            table.version = version
            wait = table.last_move + 1 / rate - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            table.last_move = time.perf_counter()
            table.sent_at[version + 1] = table.last_move
            await socket.send(json.dumps({"version": version, **move}))


class CpuMeter:
    """CPU seconds (user + system) that processes and their children, running or ended, spend between
    ``start`` and ``stop``, read from /proc (Linux)."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.before: dict[int, float] = {}
        self.after: dict[int, float] = {}

    ENDED = (FileNotFoundError, ProcessLookupError)
    """What reading /proc raises for a process that ended meanwhile."""

    @staticmethod
    def tree(pid: int) -> list[int]:
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except CpuMeter.ENDED:
            return []
        return [pid, *(grandchild for child in children for grandchild in CpuMeter.tree(int(child)))]

    @classmethod
    def seconds(cls, pid: int) -> float:
        total = 0
        for member in cls.tree(pid):
            with contextlib.suppress(*cls.ENDED):
                fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
                # utime, stime, and cutime, cstime: children that ended (a PostgreSQL backend whose
                # connection closed) count too, through the parent that reaped them.
                total += sum(int(value) for value in fields[11:15])
        return total / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def name(pid: int) -> str:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        return f"{pid} " + " ".join(word.decode() for word in words[:6] if word)[:70]

    def start(self) -> None:
        self.before = {pid: self.seconds(pid) for pid in self.pids}

    def stop(self) -> None:
        self.after = {pid: self.seconds(pid) for pid in self.pids}

    def used(self) -> dict[str, float]:
        used = {self.name(pid): self.after[pid] - self.before[pid] for pid in self.pids if pid in self.before}
        if used:
            used["all of these"] = sum(used.values())
        return used


class Command(WritingBenchmark):
    help = "Simulated players at many tables over websockets; prints moves/s and update latency."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--url",
            action="append",
            help="a server's websocket address (default ws://127.0.0.1:8000); give several to spread the "
            "tables over them, every seat of a table on the same server, as a load balancer would",
        )
        parser.add_argument("--origin", default="http://127.0.0.1:8000")
        parser.add_argument("--tables", type=int, default=50)
        parser.add_argument("--rate", type=float, default=1.0, help="moves per second per table")
        parser.add_argument("--seconds", type=float, default=60.0, help="how long to measure")
        parser.add_argument(
            "--warmup", type=float, default=5.0, help="seconds of play after connecting, not measured"
        )
        parser.add_argument("--game", choices=["americana", "classic"], default="americana")
        parser.add_argument(
            "--clock",
            type=int,
            choices=TurnClock.values,
            default=TurnClock.NONE,
            help="seconds a turn may take (default 0: no clock, as at a private table); with a clock, as "
            "at every public table, each move also queues its seat's clock task",
        )
        parser.add_argument(
            "--samples",
            metavar="FILE",
            help="write every measured move to this CSV (seconds into the measurement, its Unix time, "
            "table, ms to every seat): where in time the slow ones fall, to set beside the servers' logs",
        )
        parser.add_argument(
            "--cpu",
            action="append",
            type=int,
            default=[],
            metavar="PID",
            help="a process (with its children) whose CPU time per move to report, e.g. each Daphne, the "
            "worker, nginx, Redis, the PostgreSQL server; give it once per process (the load generator "
            "itself is always reported with them)",
        )

    def handle(self, *args, url: list[str], origin: str, tables: int, rate: float, seconds: float, **options):
        self.lags: list[float] = []
        warmup, game = options["warmup"], options["game"]
        made = make_tables(tables, game, options["clock"])
        urls = url or ["ws://127.0.0.1:8000"]
        cpu = CpuMeter([*options["cpu"], os.getpid()] if options["cpu"] else [])
        clock = Clock(len(made) * 4, warmup, seconds)
        results = asyncio.run(self.run(urls, origin, made, rate, clock, cpu))
        cpu.stop()
        elapsed = time.perf_counter() - clock.measured_from
        latencies = sorted(
            took for table in results for sent, took in table.latencies if sent >= clock.measured_from
        )
        turn_clock = f"a {options['clock']} s turn clock" if options["clock"] else "no turn clock"
        self.stdout.write(
            f"tables: {tables} x 4 seats, {game}, {turn_clock}, target {rate:g} move/s per table, "
            f"measured {elapsed:.0f} s "
            f"after {clock.connected_after:.0f} s of connecting and {warmup:.0f} s of warming up"
        )
        self.stdout.write(f"moves seen by every seat: {len(latencies)} ({len(latencies) / elapsed:.1f}/s)")
        if options["samples"]:
            wall = time.time() - time.perf_counter()  # from the samples' clock to the servers' logs' clock
            with open(options["samples"], "w", newline="") as out:
                writer = csv.writer(out)
                writer.writerow(["second", "at", "table", "ms"])
                writer.writerows(
                    (
                        f"{sent - clock.measured_from:.3f}",
                        f"{wall + sent:.3f}",
                        table.table_id,
                        f"{took * 1000:.1f}",
                    )
                    for table in results
                    for sent, took in table.latencies
                    if sent >= clock.measured_from
                )
        if latencies:
            p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
            self.stdout.write(
                f"move -> every seat updated: p50 {statistics.median(latencies) * 1000:.0f} ms, "
                f"p99 {p99 * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms ({len(latencies)} samples)"
            )
            lags = sorted(self.lags)
            self.stdout.write(
                f"the load generator's own event loop, late by: p50 {statistics.median(lags) * 1000:.0f} ms, "
                f"p99 {lags[int(len(lags) * 0.99)] * 1000:.0f} ms (its lateness is in the figures above)"
            )
            for name, seconds_used in cpu.used().items():
                self.stdout.write(f"CPU per move, {name}: {seconds_used * 1000 / len(latencies):.2f} ms")

    async def run(
        self, urls: list[str], origin: str, made, rate: float, clock: Clock, cpu: "CpuMeter"
    ) -> list[Table]:
        tables = [Table(table_id, cookies) for table_id, cookies in made]

        async def measure() -> None:
            await clock.start(started)
            cpu.start()
            while time.perf_counter() < clock.deadline:
                before = time.perf_counter()
                await asyncio.sleep(LAG_PROBE)
                self.lags.append(time.perf_counter() - before - LAG_PROBE)

        started = time.perf_counter()
        await asyncio.gather(
            measure(),
            *(
                play_seat(
                    urls[index % len(urls)],
                    origin,
                    table,
                    seat,
                    clock,
                    rate,
                    CONNECT_SPACING * (index * 4 + seat),
                )
                for index, table in enumerate(tables)
                for seat in range(4)
            ),
        )
        return tables
