"""``manage.py soak``: bot-only tables for a long while on the production shape; numbers, not a test.

It starts its own processes on this process's ``DATABASE_URL`` and ``REDIS_URL``: two Daphne
servers and one Celery worker with beat embedded, with ``DEBUG=0`` and a Celery queue of their own.
It keeps ``--tables`` tables whose every seat is a bot playing (a new one replaces each finished
match), with a staff watcher's websocket on each, spread over the two servers so they render every
move. Every ``--report-every`` minutes it prints each process's resident memory and what each Daphne
holds per table (``config.holdings``, read from its ``/metrics``); with ``--kill-worker-at`` it kills
the worker with ``-9`` once and starts it again. At the end it prints the matches finished, the
errors (error lines in the processes' logs, processes that died, matches that stalled or were
aborted, watchers' sockets that failed), and each process's resident memory at the end of the
warm-up and at the end, with its growth per thousand matches finished in between: a process that
levels off grows by little per thousand matches, one that leaks by the same amount every time.
"""

import asyncio
import itertools
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.db import connection
from django.utils.translation import gettext_noop
from prometheus_client.parser import text_string_to_metric_families

from bench.guard import WritingBenchmark, bench_username
from bench.management.commands.loadbench import session_cookie
from config import procfile
from gameplay import services as gameplay_services
from gameplay.models import Match, Move
from tables import services as table_services
from tables.models import BotLevel, Table, TurnClock

ROOT = Path(settings.BASE_DIR)
ERROR_LINE = re.compile(r"\bERROR\b|Traceback|CRITICAL")
POLL_SECONDS = 2.0
STALL_SECONDS = 60.0
"""A playing match whose version has not moved for this long has stalled (bots act within seconds)."""
STOPPED = gettext_noop("Stopped by a moderator.")
"""Why the matches still playing at the end are stopped (so no worker plays them on afterwards)."""
TARGET_GROWTH = 5.0
"""Percent: no process may grow more than this between the end of the warm-up and the end."""
SHOWN_HELD = ("tables pages", "tables keys", "shared table reads", "tables echoes", "markup memo")
"""What the interval lines show of each Daphne's holdings (all of them are on its ``/metrics``)."""


def bot_table(*, host, game: str, options: dict, level: str) -> Table:
    """A started table whose every seat is a bot: ``host`` opens it, a bot takes their seat, and
    bots of ``level`` fill the others (the last one starts the match)."""
    table = gameplay_services.table_create(
        host=host, game=game, options=options, turn_clock=TurnClock.NONE, is_private=True
    )
    gameplay_services.player_replace_with_bot(table_id=table.pk, position=0)
    for position in range(1, table.players):
        table_services.bot_add(table_id=table.pk, by=host, position=position, level=level)
    return table


def resident_kib(pid: int) -> int:
    """The process's resident memory (VmRSS) in KiB; 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) if found else 0


def children(pid: int) -> list[int]:
    """The process's children (the worker's embedded beat runs as one)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def held_at(server: str) -> dict[str, int]:
    """What the Daphne at ``server`` (its http or ws address) holds per table, match, connection and
    person (``config.holdings``), as its ``/metrics`` reports it."""
    with urllib.request.urlopen(f"{server.replace('ws://', 'http://')}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    return {
        sample.labels["what"]: int(sample.value)
        for family in text_string_to_metric_families(text)
        if family.name == "septica_process_held"
        for sample in family.samples
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    command: list[str]
    memory: dict[str, dict[int, int]] = field(default_factory=dict)
    """KiB by moment ("start": the warm-up's end, "end") and pid (the process and each child)."""
    finished: dict[str, int] = field(default_factory=dict)
    """The matches finished by each moment."""
    restarted: float | None = None
    """When it was started again (``time.monotonic()``) after being killed; its warm-up starts anew."""
    lives: list["Life"] = field(default_factory=list)
    """Its lives that ended with a kill, each judged from its warm-up's end to the kill."""

    def measure(self, moment: str, finished: int) -> None:
        self.memory[moment] = self.now()
        self.finished[moment] = finished

    def judged(self) -> list["Life"]:
        """Each life's memory from its warm-up's end to its end: those that ended with a kill, then
        the last, if it lived past its warm-up."""
        last = []
        if "start" in self.memory:
            matches = self.finished["end"] - self.finished["start"]
            last.append(Life("", self.memory["start"], self.memory["end"], matches))
        return [*self.lives, *last]

    def now(self) -> dict[int, int]:
        """KiB by pid, the process's and each child's."""
        return {pid: resident_kib(pid) for pid in [self.popen.pid, *children(self.popen.pid)]}

    @property
    def port(self) -> int | None:
        return int(self.name.split(":")[1]) if self.name.startswith("daphne") else None

    def errors(self) -> list[str]:
        return [line for line in self.log.read_text(errors="replace").splitlines() if ERROR_LINE.search(line)]


@dataclass(frozen=True)
class Life:
    """A process's memory (KiB by pid) at the end of its warm-up and at the end of its life, and the
    matches finished in between."""

    label: str
    start: dict[int, int]
    end: dict[int, int]
    matches: int


@dataclass
class Tally:
    finished: int = 0
    stalled: int = 0
    aborted: int = 0
    socket_failures: int = 0
    frames: int = 0
    moves: int = 0
    worker_killed_at: float | None = None
    """Minutes into the run when the worker was killed (and started again)."""


class Command(WritingBenchmark):
    help = "Bot-only tables on two Daphne servers and a Celery worker with beat; prints errors and memory."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--minutes", type=float, default=30.0, help="how long to run (default 30)")
        parser.add_argument("--tables", type=int, default=20, help="bot-only tables kept playing")
        parser.add_argument(
            "--game",
            choices=["both", "americana", "classic"],
            default="both",
            help="the tables' game; both (the default) alternates them (each game's default options)",
        )
        parser.add_argument("--players", type=int, choices=[2, 3, 4], default=4)
        parser.add_argument("--level", choices=BotLevel.values, default=BotLevel.NORMAL)
        parser.add_argument(
            "--warmup",
            type=float,
            default=5.0,
            help="minutes of play before the start memory is read and growth is judged (default 5)",
        )
        parser.add_argument(
            "--report-every", type=float, default=5.0, help="minutes between memory lines (default 5)"
        )
        parser.add_argument(
            "--kill-worker-at",
            type=float,
            default=None,
            help="minutes into the run at which the worker is killed with -9 and started again",
        )

    def handle(self, *args, minutes: float, tables: int, game: str, players: int, level: str, **options):
        if settings.EMBEDDED or connection.vendor != "postgresql":
            raise CommandError("The soak runs on PostgreSQL and Redis: set DATABASE_URL and REDIS_URL.")
        queue = f"soak-{uuid.uuid4().hex[:8]}"
        from config.celery import app

        app.conf.task_default_queue = queue  # this process's tables start on the soak's own worker
        logs = Path(tempfile.mkdtemp(prefix="soak-"))
        processes = self.start(queue, logs)
        run = uuid.uuid4().hex[:6]
        users = get_user_model().objects
        host = users.create_user(bench_username(f"soak-{run}"))
        watcher = users.create_user(bench_username(f"soak-{run}-watcher"), is_staff=True)
        self.games = itertools.cycle(["classic", "americana"] if game == "both" else [game])
        self.game, self.players, self.level, self.host = game, players, level, host
        tally = Tally()
        started = time.monotonic()
        self.warmup, self.report_every = options["warmup"] * 60, options["report_every"] * 60
        self.kill_at = options["kill_worker_at"] * 60 if options["kill_worker_at"] is not None else None
        try:
            asyncio.run(self.play(processes, tables, session_cookie(watcher), tally, minutes * 60))
        finally:
            for process in processes:
                process.measure("end", tally.finished)
            for table in Table.objects.filter(host=host).exclude(status=Table.Status.CLOSED):
                gameplay_services.table_close(table_id=table.pk, reason=STOPPED)
            self.stop(processes)
        self.report(processes, tally, tables, time.monotonic() - started, logs)

    def start(self, queue: str, logs: Path) -> list[Process]:
        """Two Daphne servers and one Celery worker with beat, as production runs them."""
        env = {
            **os.environ,
            "DEBUG": "0",
            "SECRET_KEY": settings.SECRET_KEY,  # the watchers' sessions are signed with this process's key
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "CELERY_QUEUE": queue,
            "LOG_LEVEL": "WARNING",
        }
        commands = {f"daphne :{port}": procfile.daphne_command(port) for port in (free_port(), free_port())}
        # The Procfile's worker (its pool of threads, beat embedded), on the soak's queue (CELERY_QUEUE).
        commands["celery worker + beat"] = procfile.command(
            "worker", RUN_DIR=str(logs), WORKER_LOG_LEVEL="WARNING"
        )
        self.env = env
        processes = []
        for name, command in commands.items():
            log = logs / f"{name.split()[0]}-{len(processes)}.log"
            processes.append(Process(name=name, popen=self.spawn(command, log), log=log, command=command))
        try:
            for process in processes[:2]:
                self.wait_for_server(process)
        except CommandError:
            self.stop(processes)
            raise
        return processes

    def spawn(self, command: list[str], log: Path) -> subprocess.Popen:
        """The process, in a session of its own (so it and what it forks are ended by its id), its
        output added to ``log``."""
        with log.open("a") as out:
            return subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    @staticmethod
    def wait_for_server(process: Process, timeout: float = 60.0) -> None:
        port = process.port
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.popen.poll() is not None:
                raise CommandError(f"{process.name} exited; see {process.log}.")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.2)
        raise CommandError(f"{process.name} did not listen within {timeout:g} s; see {process.log}.")

    @staticmethod
    def stop(processes: list[Process]) -> None:
        for process in processes:
            os.killpg(process.popen.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.popen.pid, signal.SIGKILL)
                process.popen.wait()

    def new_match(self) -> int:
        game = next(self.games)
        table = bot_table(host=self.host, game=game, options={"players": self.players}, level=self.level)
        return Match.objects.get(table=table).pk

    async def play(
        self, processes: list[Process], count: int, cookie: str, tally: Tally, seconds: float
    ) -> None:
        """Keep ``count`` matches playing, each watched over a websocket, until ``seconds`` have passed."""
        servers = [f"ws://127.0.0.1:{p.port}" for p in processes[:2]]
        started = time.monotonic()
        deadline = started + seconds
        watchers: dict[int, asyncio.Task] = {}
        progress: dict[int, tuple[int, float]] = {}
        """Each match's last version seen and when it moved to it."""
        next_report = started + self.report_every
        for index in range(count):
            match_id = await asyncio.to_thread(self.new_match)
            watchers[match_id] = asyncio.create_task(self.watch(servers[index % 2], match_id, cookie, tally))
        while time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS)
            now = time.monotonic()
            for process in processes:
                if "start" not in process.memory and now - (process.restarted or started) >= self.warmup:
                    process.measure("start", tally.finished)
            if now >= next_report:
                next_report += self.report_every
                await self.report_memory(processes, tally, (now - started) / 60)
            if self.kill_at is not None and tally.worker_killed_at is None and now - started >= self.kill_at:
                tally.worker_killed_at = (now - started) / 60
                self.kill_and_restart(processes[2], tally.finished)
            states = await asyncio.to_thread(
                lambda: list(
                    Match.objects.filter(pk__in=list(watchers)).values_list("pk", "status", "version")
                )
            )
            now = time.monotonic()
            for match_id, status, version in states:
                last_version, since = progress.get(match_id, (-1, now))
                if status == Match.Status.PLAYING and now - since < STALL_SECONDS:
                    progress[match_id] = (version, now) if version != last_version else (last_version, since)
                    continue
                if status == Match.Status.FINISHED:
                    tally.finished += 1
                elif status == Match.Status.ABORTED:
                    tally.aborted += 1
                else:
                    tally.stalled += 1
                watchers.pop(match_id).cancel()
                progress.pop(match_id, None)
                replacement = await asyncio.to_thread(self.new_match)
                server = servers[(tally.finished + tally.aborted + tally.stalled) % 2]
                watchers[replacement] = asyncio.create_task(self.watch(server, replacement, cookie, tally))
            if any(process.popen.poll() is not None for process in processes):
                break
        for task in watchers.values():
            task.cancel()
        await asyncio.gather(*watchers.values(), return_exceptions=True)
        tally.moves = await asyncio.to_thread(Move.objects.filter(match__table__host=self.host).count)

    def kill_and_restart(self, process: Process, finished: int) -> None:
        """``kill -9`` the process and what it forked (the worker's beat), as a machine losing it would,
        and start it again: the life that ended is judged up to the kill (if it lived past its
        warm-up), the new one after a warm-up of its own."""
        if "start" in process.memory:
            matches = finished - process.finished["start"]
            process.lives.append(Life(" (until killed)", process.memory.pop("start"), process.now(), matches))
        os.killpg(process.popen.pid, signal.SIGKILL)
        process.popen.wait()
        process.popen = self.spawn(process.command, process.log)
        process.restarted = time.monotonic()
        self.stdout.write(f"{process.name}: killed with -9 and started again (pid {process.popen.pid})")

    async def report_memory(self, processes: list[Process], tally: Tally, minutes: float) -> None:
        """One line of each process's resident memory now, and of what each Daphne holds."""
        parts = []
        for process in processes:
            sizes = [f"{kib / 1024:.1f}" for kib in process.now().values()]
            parts.append(f"{process.name} {' + '.join(sizes)} MiB")
            if process.port is not None:
                try:
                    held = await asyncio.to_thread(held_at, f"http://127.0.0.1:{process.port}")
                except OSError:
                    continue
                parts[-1] += " (" + ", ".join(f"{what} {held.get(what, 0)}" for what in SHOWN_HELD) + ")"
        self.stdout.write(f"{minutes:5.1f} min, {tally.finished} matches: " + "; ".join(parts))
        self.stdout.flush()

    @staticmethod
    async def watch(server: str, match_id: int, cookie: str, tally: Tally) -> None:
        """A staff member watching the match's table: every frame the server sends is counted."""
        import websockets

        table_id = await asyncio.to_thread(lambda: Match.objects.get(pk=match_id).table_id)
        headers = {"Cookie": cookie, "Origin": "http://127.0.0.1"}
        try:
            async with websockets.connect(
                f"{server}/ws/tables/{table_id}/", additional_headers=headers
            ) as ws:
                async for _frame in ws:
                    tally.frames += 1
        except (OSError, websockets.exceptions.WebSocketException):
            tally.socket_failures += 1

    def report(self, processes: list[Process], tally: Tally, tables: int, elapsed: float, logs: Path) -> None:
        log_errors = {process.name: process.errors() for process in processes}
        died = [p.name for p in processes if p.popen.returncode not in (0, -signal.SIGTERM)]
        errors = sum(map(len, log_errors.values())) + len(died)
        errors += tally.stalled + tally.aborted + tally.socket_failures
        write = self.stdout.write
        write(
            f"soak: {elapsed / 60:.1f} min, {tables} bot-only tables ({self.game}) of {self.players} "
            f"({self.level} bots); 2 Daphne, 1 Celery worker with beat, DEBUG=0"
        )
        write(
            f"matches finished: {tally.finished}; moves made: {tally.moves}; frames watched: {tally.frames}"
        )
        write(
            f"errors: {errors} (log lines {sum(map(len, log_errors.values()))}, processes died {len(died)}, "
            f"matches stalled {tally.stalled}, aborted {tally.aborted}, watcher sockets failed "
            f"{tally.socket_failures})"
        )
        if tally.worker_killed_at is not None:
            write(f"the worker was killed with -9 at {tally.worker_killed_at:.1f} min and started again")
        write(
            f"{'resident memory (VmRSS)':<32}    pid  warmed up        end  growth  per 1000 matches "
            f"(after a {self.warmup / 60:g} min warm-up)"
        )
        worst = 0.0
        for process in processes:
            lives = process.judged()
            if not lives:
                write(f"  {process.name:<30}  not judged: no time left after its warm-up")
            for life in lives:
                worst = max(worst, self.write_life(process, life))
        for name, lines in log_errors.items():
            for line in lines[:5]:
                write(f"  {name}: {line}")
        verdict = "met" if errors == 0 and worst <= TARGET_GROWTH else "NOT met"
        write(
            f"target (no error, no process growing more than {TARGET_GROWTH:g}% after the warm-up): "
            f"{verdict}; logs in {logs}"
        )

    def write_life(self, process: Process, life: Life) -> float:
        """A line for each pid of the life (the process and its children); the largest growth in percent."""
        worst = 0.0
        main = next(iter(life.start))  # the process itself; its children follow (``Process.now``)
        for pid, start in life.start.items():
            end = life.end.get(pid, 0)
            growth = (end - start) / start * 100 if start and end else 0.0
            worst = max(worst, growth)
            name = process.name if pid == main else f"{process.name} (child)"
            per_thousand = (
                f"{(end - start) / 1024 / life.matches * 1000:+7.1f} MiB" if life.matches else "      -"
            )
            self.stdout.write(
                f"  {name + life.label:<30} {pid:>7} {start / 1024:6.1f} MiB {end / 1024:6.1f} MiB "
                f"{growth:+6.1f}%  {per_thousand} ({life.matches} matches)"
            )
        return worst
