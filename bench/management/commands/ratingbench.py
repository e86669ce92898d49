"""Benchmark the ratings: do they tell the truth about bots of known levels, and what do they cost.

``manage.py ratingbench --matches 1200 --seed 1 2 --jobs 2`` plays and rates the matches (the engine
alone, no database) and times the update; ``--matches 0 --rebuild 100000`` on a database of its own
fills it with synthetic rated matches and times ``rebuild_ratings`` over them.
"""

import hashlib
import random
import sys
import time
from collections import defaultdict
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from bench.guard import bench_username
from bots import rating_arena as bench
from gameplay.engine import GAME_NAMES, get_game
from gameplay.engine.classic import teams
from gameplay.models import Match, Participant
from ratings import services
from ratings.models import Rating, RatingChange
from tables.models import Table

BATCH = 5000
SYNTHETIC_START = datetime(2025, 1, 1, tzinfo=UTC)
"""The first synthetic match's finish; the next ones follow a minute apart, so the order is fixed."""


class Command(BaseCommand):
    help = (
        "Benchmark the ratings: bots of known levels rated against each other (the mean rating per level, "
        "held-out predictions), the time per update and, with --rebuild, rebuild_ratings over synthetic "
        "matches on a database of its own."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, default=600, help="matches per game and seed; 0: none")
        parser.add_argument("--seed", type=int, nargs="+", default=[1], help="one run per seed")
        parser.add_argument("--jobs", type=int, default=1, help="processes playing matches side by side")
        parser.add_argument("--hard-budget", type=float, default=0.005, help="hard's seconds per decision")
        parser.add_argument("--per-level", type=int, default=6, help="pseudo-people of each bot level")
        parser.add_argument("--games", nargs="+", choices=GAME_NAMES, default=list(GAME_NAMES))
        parser.add_argument("--updates", type=int, default=5000, help="rating updates timed per table size")
        parser.add_argument("--rebuild", type=int, default=0, help="synthetic matches to rebuild; 0: none")
        parser.add_argument("--rebuild-users", type=int, default=2000, help="synthetic people among them")

    def handle(self, *args, **options) -> None:
        if options["matches"]:
            self._truth(options)
        self._write(
            bench.cost_lines(bench.update_cost(options["updates"], options["seed"][0]), options["updates"])
        )
        if options["rebuild"]:
            self._rebuild(options["rebuild"], options["rebuild_users"], options["seed"][0])

    def _write(self, lines: list[str]) -> None:
        self.stdout.write("\n".join(lines))
        self.stdout.flush()

    def _truth(self, options: dict) -> None:
        levels = bench.pool(options["per_level"])
        gaps: dict[str, dict[int, tuple[float, float]]] = defaultdict(dict)
        with ProcessPoolExecutor(options["jobs"]) if options["jobs"] > 1 else nullcontext() as executor:
            for seed in options["seed"]:
                for game in options["games"]:
                    jobs = bench.schedule(game, options["matches"], levels, seed, options["hard_budget"])
                    started = time.perf_counter()
                    results = _played(executor, jobs)
                    seconds = time.perf_counter() - started
                    replay = bench.rate_in_order(jobs, results)
                    gaps[game][seed] = bench.gaps(bench.levels_table(replay, levels))
                    self._write(bench.run_lines(game, seed, jobs, levels, replay, seconds))
        for game, by_seed in gaps.items():
            self._write(bench.seeds_lines(game, by_seed))

    def _rebuild(self, matches: int, users: int, seed: int) -> None:
        if get_user_model().objects.exists() or Match.objects.exists():
            raise CommandError(
                "--rebuild fills the database with synthetic people and matches and rewrites every "
                "rating: it runs only on a freshly migrated database of its own, and "
                f"{connection.settings_dict['NAME']} already has people or matches."
            )
        started = time.perf_counter()
        _synthetic(matches, users, seed)
        self._write(
            [
                f"synthetic data on {connection.vendor} ({connection.settings_dict['NAME']}): "
                f"{get_user_model().objects.count()} people, {Table.objects.count()} tables, "
                f"{Match.objects.count()} matches, {Participant.objects.count()} participants, "
                f"made in {time.perf_counter() - started:.0f} s"
            ]
        )
        for label in ("first rebuild (every match rated anew)", "second rebuild (every match rated before)"):
            started = time.perf_counter()
            rebuilt = services.ratings_rebuild()
            self._write(
                [
                    f"{label}: {time.perf_counter() - started:.1f} s for {rebuilt.matches} matches "
                    f"({rebuilt.newly_rated} rated for the first time, {rebuilt.voided} voided), "
                    f"{rebuilt.people} people, {Rating.objects.count()} ratings, "
                    f"{RatingChange.objects.count()} rating changes; digest {_digest()}"
                ]
            )


def _played(executor: Executor | None, jobs: list[bench.Job]) -> list[dict]:
    """Every match's result, in the order of ``jobs``; progress on stderr."""
    played = executor.map(bench.play, jobs, chunksize=4) if executor else map(bench.play, jobs)
    results = []
    for result in played:
        results.append(result)
        if len(results) % max(1, len(jobs) // 10) == 0:
            print(f"{jobs[0].game}: {len(results)}/{len(jobs)} matches", file=sys.stderr, flush=True)
    return results


def _synthetic_result(game: str, options: dict, rng: random.Random) -> dict:
    """A finished match's result, random but well formed: the single best score wins, a tie has no winner."""
    if game == "americana":
        totals = [rng.randrange(130) for _ in range(options["players"])]
        lowest = min(totals)
        winners = [totals.index(lowest)] if totals.count(lowest) == 1 else []
        return {"totals": totals, "games_won": None, "winners": winners, "left": []}
    sides = teams(get_game(game).options_from_json(options))
    totals = [rng.randrange(12) for _ in sides]
    games_won = [rng.randrange(4) for _ in sides]
    best = max(totals)
    winners = sides[totals.index(best)] if totals.count(best) == 1 else []
    return {"totals": totals, "games_won": games_won, "winners": winners, "left": []}


@transaction.atomic
def _synthetic(matches: int, users: int, seed: int) -> None:
    """``users`` people and ``matches`` finished rated matches between them, a table each, a minute apart."""
    rng = random.Random(f"ratingbench:rebuild:{seed}")
    people = [get_user_model()(username=bench_username(f"rating-{index:05d}")) for index in range(users)]
    for person in people:
        person.set_unusable_password()
    people = get_user_model().objects.bulk_create(people, batch_size=BATCH)
    plans = []
    for index in range(matches):
        game = rng.choice(GAME_NAMES)
        options = bench.options_json(game, rng.choice(bench.SIZES))
        seated = rng.sample(people, options["players"])
        finished_at = SYNTHETIC_START + timedelta(minutes=index)
        plans.append((game, options, seated, finished_at, _synthetic_result(game, options, rng)))
    tables = Table.objects.bulk_create(
        [
            Table(
                game=game,
                options=options,
                is_rated=True,
                host=seated[0],
                status=Table.Status.FINISHED,
                started_at=finished_at - timedelta(minutes=20),
                finished_at=finished_at,
            )
            for game, options, seated, finished_at, _result in plans
        ],
        batch_size=BATCH,
    )
    rows = Match.objects.bulk_create(
        [
            Match(
                table=table,
                game=game,
                options=options,
                seed=index,
                state={},
                status=Match.Status.FINISHED,
                result=result,
                finished_at=finished_at,
            )
            for index, (table, (game, options, _seated, finished_at, result)) in enumerate(
                zip(tables, plans, strict=True)
            )
        ],
        batch_size=BATCH,
    )
    Participant.objects.bulk_create(
        (
            Participant(match=row, seat=seat, user=person, name=person.username, from_move=0)
            for row, (_game, _options, seated, _at, _result) in zip(rows, plans, strict=True)
            for seat, person in enumerate(seated)
        ),
        batch_size=BATCH,
    )


def _digest() -> str:
    """A fingerprint of every rating and rating change, to tell whether two rebuilds computed the same."""
    digest = hashlib.sha256()
    for row in (
        Rating.objects.order_by("user_id", "game")
        .values_list(
            "user_id", "game", "mu", "sigma", "shown", "peak", "matches", "established", "last_played_at"
        )
        .iterator(chunk_size=BATCH)
    ):
        digest.update(repr(row).encode())
    for row in RatingChange.objects.order_by("match_id", "seat").values_list(
        "match_id", "user_id", "game", "seat", "place", "left", "mu_before", "sigma_before", "mu_after",
        "sigma_after", "before", "after", "change", "established", "voided", "at",
    ).iterator(chunk_size=BATCH):  # fmt: skip
        digest.update(repr(row).encode())
    return digest.hexdigest()[:16]
