"""Benchmark own-pace play at scale: does the sweep stay as cheap with 20,000 matches waiting days for
their moves as with 2,000?

``manage.py pacebench --counts 2000 10000 20000`` fills the database (one of its own) with two-seat
matches at their own pace, deadlines spread over the next day, and at each count times the sweep as beat
runs it: a pass with nothing due (nearly every pass) and a pass finding ``--due`` moves whose time ran out
(each then played by a bot for its person, as ``gameplay.services.pace_stand_in`` does). It prints the
median and the 95th percentile of each, the statements each pass ran and the plan PostgreSQL chose for the
sweep's look at the deadlines.
"""

import random
import time
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import CommandParser
from django.db import connection, transaction
from django.utils import timezone

from bench.guard import WritingBenchmark, bench_username
from bots.services import bot_turn
from gameplay import services
from gameplay.engine import get_game
from gameplay.models import Match, Participant
from tables.models import Pace, Seat, Table

BATCH = 2000
PEOPLE = 400
"""The benchmark's people: each sits at many matches, as a keen own-pace player does (up to the cap)."""


class Command(WritingBenchmark):
    help = "Benchmark the sweep's cost per run with many matches at their own pace open (2k, 10k, 20k)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--counts", type=int, nargs="+", default=[2000, 10000, 20000])
        parser.add_argument("--passes", type=int, default=30, help="sweeps timed at each count, each kind")
        parser.add_argument("--due", type=int, default=10, help="moves run out before each busy pass")
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, **options) -> None:
        rng = random.Random(options["seed"])
        people = _people()
        self._line(
            f"sweep every {settings.SWEEP_SECONDS:g} s; {len(people)} people; {options['passes']} passes"
        )
        self._line("matches  idle p50 ms  idle p95 ms  busy p50 ms  busy p95 ms  statements idle/busy")
        for count in sorted(options["counts"]):
            _fill_to(count, people, rng)
            idle, idle_statements = _timed_sweeps(options["passes"], 0)
            busy, busy_statements = _timed_sweeps(options["passes"], options["due"])
            timings = "  ".join(f"{_ms(runs, percent):>11}" for runs in (idle, busy) for percent in (50, 95))
            self._line(f"{count:>7}  {timings}  {idle_statements}/{busy_statements}")
        self._line("The sweep's look at the deadlines:")
        self._line(_plan() + "\n")

    def _line(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()


def _ms(seconds: list[float], percent: int) -> str:
    """The ``percent``-th percentile of ``seconds``, in milliseconds."""
    ordered = sorted(seconds)
    return f"{ordered[min(len(ordered) - 1, int(len(ordered) * percent / 100))] * 1000:.2f}"


def _people() -> list:
    User = get_user_model()
    names = [bench_username(f"pace{index}") for index in range(PEOPLE)]
    User.objects.bulk_create([User(username=name) for name in names], ignore_conflicts=True)
    return list(User.objects.filter(username__in=names).order_by("pk"))


def _fill_to(count: int, people: list, rng: random.Random) -> None:
    """Open two-seat classic matches at one day a move until ``count`` run, deadlines over the next day."""
    game = get_game("classic")
    options = game.options_to_json(game.options_from_json({"players": 2}))
    running = Match.objects.filter(status=Match.Status.PLAYING, due=Match.Due.PACE).count()
    while running < count:
        size = min(BATCH, count - running)
        with transaction.atomic():
            now = timezone.now()
            pairs = [rng.sample(people, 2) for _ in range(size)]
            tables = Table.objects.bulk_create(
                Table(
                    game="classic",
                    options=options,
                    pace_hours=Pace.DAY_1,
                    host=pair[0],
                    status=Table.Status.PLAYING,
                    started_at=now,
                )
                for pair in pairs
            )
            Seat.objects.bulk_create(
                Seat(table=table, position=position, user=person)
                for table, pair in zip(tables, pairs, strict=True)
                for position, person in enumerate(pair)
            )
            matches = []
            for table in tables:
                seed = rng.getrandbits(63)
                state = game.new_match(game.options_from_json(options), seed)
                matches.append(
                    Match(
                        table=table,
                        game="classic",
                        options=options,
                        seed=seed,
                        state=game.state_to_json(state),
                        to_act=game.to_act(state),
                        due=Match.Due.PACE,
                        due_at=now + timedelta(seconds=rng.uniform(60, 24 * 3600)),
                    )
                )
            Match.objects.bulk_create(matches)
            Participant.objects.bulk_create(
                Participant(match=match, seat=position, user=person, name=person.username)
                for match, pair in zip(matches, pairs, strict=True)
                for position, person in enumerate(pair)
            )
        running += size


def _timed_sweeps(passes: int, due: int) -> tuple[list[float], int]:
    """Seconds per sweep over ``passes`` passes, ``due`` moves run out before each; statements per pass."""
    seconds = []
    statements = 0
    for _ in range(passes):
        waiting: list[int] = []
        if due:
            waiting = list(
                Match.objects.filter(
                    status=Match.Status.PLAYING, due=Match.Due.PACE, due_at__gt=timezone.now()
                )
                .order_by("?")
                .values_list("pk", flat=True)[:due]
            )
            Match.objects.filter(pk__in=waiting).update(due_at=timezone.now() - timedelta(seconds=5))
        counted = [0]
        with connection.execute_wrapper(partial(_count, counted)):
            started = time.perf_counter()
            services.sweep()
            seconds.append(time.perf_counter() - started)
        statements = counted[0]
        _play_stand_ins(waiting if due else [])
    return seconds, statements


def _count(counted: list[int], execute, sql, params, many, context):
    """A statement the sweep ran, counted (``connection.execute_wrapper``)."""
    counted[0] += 1
    return execute(sql, params, many, context)


def _play_stand_ins(match_ids: list[int]) -> None:
    """The bots' moves the sweep asked for, played as the worker would (outside the timing), so each pass
    starts from the steady state: every match waiting at its own pace again."""
    for match_id, version in Match.objects.filter(pk__in=match_ids, due=Match.Due.BOT).values_list(
        "pk", "version"
    ):
        bot_turn(match_id=match_id, expected_version=version)


def _plan() -> str:
    """PostgreSQL's plan for the sweep's look at the deadlines run out (the index on them, or not)."""
    if connection.vendor != "postgresql":
        return "(PostgreSQL only)"
    query = (
        Match.objects.filter(status=Match.Status.PLAYING, due_at__lt=timezone.now())
        .order_by()
        .values_list("pk", "version", "due", "to_act")
    )
    return query.explain(analyze=True)
