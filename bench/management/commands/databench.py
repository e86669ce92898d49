"""``manage.py databench``: a month's open data file built from ``--matches`` finished public rated
matches, timed, its memory measured, and read back line by line to the same matches; numbers, not a
test.

It fills an empty month (the first from January 2000 that holds no open match of the game) quickly:
``--distinct`` matches are played whole by easy bots in the engine (``bots.arena.play_through``) and
replayed for their score sheets, then repeated under new ids, tables and players (COPY for the moves
and score sheet rows). Then:

- the build in a process of its own (``manage.py opendata``), with its peak resident memory less that
  of the same process building an empty month: what the matches cost, whatever their number;
- the build again in this process under ``tracemalloc``: the peak of Python's allocations;
- the file read back through zstd line by line, each line compared with the record of its match.

PostgreSQL only (COPY). The files go to a directory of their own, deleted after unless ``--keep``.
``--filled YYYY-MM`` measures a month an earlier run filled again, without filling another.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import batched
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser
from django.db import connection, transaction
from django.test.utils import override_settings

from bench.guard import WritingBenchmark, bench_username
from bots.arena import play_through
from gameplay.engine import get_game
from gameplay.engine.replay import replay
from gameplay.games import presenter
from gameplay.models import Match, Participant
from gameplay.services.store import result
from history.records import public_records
from opendata import selectors, services
from opendata.models import Dump
from tables.models import Table

OPTIONS = {"americana": {"players": 2, "target": 101}, "classic": {"players": 2}}
PEOPLE = 200
"""Bench players the matches are shared among."""
BATCH = 2000
"""Matches written per round trip of tables, matches and participants."""
BUILD_APART = """
import sys, django
django.setup()
from django.core.management import call_command
call_command("opendata", "--game", sys.argv[1], "--month", sys.argv[2])
print(next(line for line in open("/proc/self/status") if line.startswith("VmHWM")).split()[1])
"""
"""``manage.py opendata`` in a process of its own, printing its peak resident memory (KiB) at the end."""


@dataclass
class Played:
    """One match played by the bots: what every copy of it writes."""

    seed: int
    state: dict
    result: dict
    moves: list[tuple[int, str, str]]
    """(seat, action JSON, events JSON) per move."""
    rounds: list[tuple[int, str]]
    """(number, summary JSON) per round or deal."""


def play(game_name: str, seed: int) -> Played:
    """A whole match of two easy bots, replayed for its events and score sheet."""
    game = get_game(game_name)
    options = game.options_to_json(game.options_from_json(OPTIONS[game_name]))
    rngs = [random.Random(seed * 2 + seat) for seat in range(2)]
    actions = play_through(
        game, game.new_match(game.options_from_json(options), seed), ["easy"] * 2, rngs, budget=None
    )
    replayed = replay(game_name, options, seed, actions)
    show = presenter(game_name)
    return Played(
        seed=seed,
        state=game.state_to_json(replayed.state),
        result=result(replayed.moves[-1].round_over.public),
        moves=[(move.seat, json.dumps(move.action), json.dumps(move.events)) for move in replayed.moves],
        rounds=[
            (move.round_over.number, json.dumps(show.round_summary(move.round_over.public)))
            for move in replayed.moves
            if move.round_over
        ],
    )


class Command(WritingBenchmark):
    help = "Time and measure a month's open data file built from many matches, and read it back."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, default=100_000)
        parser.add_argument("--distinct", type=int, default=300, help="matches played, then repeated")
        parser.add_argument("--game", choices=list(OPTIONS), default="classic")
        parser.add_argument("--keep", action="store_true", help="keep the files (their directory is printed)")
        parser.add_argument(
            "--filled", metavar="YYYY-MM", help="measure a month an earlier run filled, adding none"
        )

    def handle(
        self, *args, matches: int, distinct: int, game: str, keep: bool, filled: str, **options
    ) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("databench writes with COPY: run it on PostgreSQL (DATABASE_URL).")
        if filled:
            month = services.month_of(filled)
            self.stdout.write(f"{month:%Y-%m}: {selectors.month_matches(game, month).count()} {game} matches")
        else:
            month = self.empty_month(game)
            started = time.perf_counter()
            moves = self.fill(game, month, matches, distinct)
            took = time.perf_counter() - started
            self.stdout.write(
                f"filled {matches} {game} matches of {month:%Y-%m} ({moves} moves) in {took:.1f} s "
                f"({(matches + moves) / took:,.0f} rows/s)"
            )
        root = Path(tempfile.mkdtemp(prefix="databench-"))
        try:
            with override_settings(OPEN_DATA_ROOT=root):
                self.measure(game, month, root)
        finally:
            if keep:
                self.stdout.write(f"files kept in {root}")
            else:
                shutil.rmtree(root)

    def empty_month(self, game: str) -> date:
        month = date(2000, 1, 1)
        while (
            selectors.month_matches(game, month).exists()
            or Dump.objects.filter(game=game, month=month).exists()
        ):
            month = selectors.next_month(month)
        return month

    def fill(self, game: str, month: date, count: int, distinct: int) -> int:
        """``count`` finished matches of ``month`` made of ``distinct`` played ones; how many moves."""
        played = [play(game, seed) for seed in range(min(distinct, count))]
        run = uuid.uuid4().hex[:8]
        users = get_user_model()
        people = users.objects.bulk_create(
            users(username=bench_username(f"data-{run}-{n}"), email=f"data-{run}-{n}@example.com")
            for n in range(PEOPLE)
        )
        options = get_game(game).options_to_json(get_game(game).options_from_json(OPTIONS[game]))
        start = selectors.month_start(month)
        spread = (selectors.month_start(selectors.next_month(month)) - start).total_seconds()
        rng = random.Random(count)
        moves = 0
        for numbers in batched(range(count), BATCH):
            when = [start + timedelta(seconds=spread * n / count) for n in numbers]
            pairs = [rng.sample(people, 2) for _ in numbers]
            source = [played[n % len(played)] for n in numbers]
            with transaction.atomic():
                tables = Table.objects.bulk_create(
                    Table(
                        game=game,
                        options=options,
                        host=pair[0],
                        rated_wanted=True,
                        is_rated=True,
                        status=Table.Status.FINISHED,
                        started_at=at - timedelta(minutes=20),
                        finished_at=at,
                    )
                    for pair, at in zip(pairs, when, strict=True)
                )
                made = Match.objects.bulk_create(
                    Match(
                        table=table,
                        game=game,
                        options=options,
                        seed=match.seed,
                        state=match.state,
                        version=len(match.moves),
                        moves_made=len(match.moves),
                        status=Match.Status.FINISHED,
                        result=match.result,
                        finished_at=at,
                        turn_started_at=at,
                    )
                    for table, match, at in zip(tables, source, when, strict=True)
                )
                Participant.objects.bulk_create(
                    Participant(match=match, seat=seat, user=person, name=person.username)
                    for match, pair in zip(made, pairs, strict=True)
                    for seat, person in enumerate(pair)
                )
                moves += self.copy_moves_and_rounds(made, source, when)
        return moves

    @staticmethod
    def copy_moves_and_rounds(made: list[Match], source: list[Played], when: list) -> int:
        """Every copy's moves (a second apart, before its end) and score sheet rows, by COPY."""
        moves = 0
        with connection.cursor() as cursor:
            with cursor.copy(
                "COPY gameplay_move (match_id, seq, seat, action, events, actor, created_at) FROM STDIN"
            ) as copy:
                for match, played, at in zip(made, source, when, strict=True):
                    first = at - timedelta(seconds=len(played.moves))
                    for seq, (seat, action, events) in enumerate(played.moves, 1):
                        copy.write_row(
                            (match.pk, seq, seat, action, events, "player", first + timedelta(seconds=seq))
                        )
                    moves += len(played.moves)
            with cursor.copy(
                "COPY gameplay_roundresult (match_id, number, summary, created_at) FROM STDIN"
            ) as copy:
                for match, played, at in zip(made, source, when, strict=True):
                    for number, summary in played.rounds:
                        copy.write_row((match.pk, number, summary, at))
        return moves

    def measure(self, game: str, month: date, root: Path) -> None:
        empty = date(1999, 12, 1)
        baseline = self.build_apart(game, empty)
        Dump.objects.filter(game=game, month=empty).delete()
        peak = self.build_apart(game, month)
        dump = Dump.objects.get(game=game, month=month)
        self.stdout.write(
            f"build: {dump.matches} matches in {dump.build_seconds:.1f} s "
            f"({dump.matches / dump.build_seconds:,.0f} matches/s), file {dump.size / 2**20:.1f} MiB "
            f"({dump.size / dump.matches:.0f} bytes a match), sha256 {dump.sha256[:16]}…"
        )
        self.stdout.write(
            f"build process: peak resident {peak / 1024:.0f} MiB, {(peak - baseline) / 1024:.1f} MiB above "
            f"the same process building an empty month ({baseline / 1024:.0f} MiB)"
        )
        tracemalloc.start()
        services.build(game=game, month=month)
        _current, traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        self.stdout.write(f"build in this process: tracemalloc peak {traced / 2**20:.1f} MiB")
        started = time.perf_counter()
        read = 0
        expected = public_records(selectors.month_matches(game, month))
        for line, record in zip(selectors.read_records(root / dump.file_name), expected, strict=True):
            if line != record:
                raise CommandError(f"line {read + 1} is not the record of match {record['id']}")
            read += 1
        if read != dump.matches:
            raise CommandError(f"read {read} lines, the file says {dump.matches} matches")
        self.stdout.write(
            f"read back: {read} lines, each the record of its match, in {time.perf_counter() - started:.1f} s"
        )

    @staticmethod
    def build_apart(game: str, month: date) -> int:
        """Build ``month`` in a process of its own (``manage.py opendata``); that process's peak resident
        memory, KiB (its own: a child's ``ru_maxrss`` would start from this process's size)."""
        db = connection.settings_dict
        password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
        address = f"{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        done = subprocess.run(
            [sys.executable, "-c", BUILD_APART, game, f"{month:%Y-%m}"],
            cwd=settings.BASE_DIR,
            env={
                **os.environ,
                "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings"),
                "DATABASE_URL": f"postgres://{address}",  # this database, a test's too
                "OPEN_DATA_ROOT": str(settings.OPEN_DATA_ROOT),
            },
            check=True,
            capture_output=True,
            text=True,
        )
        return int(done.stdout.split()[-1])
