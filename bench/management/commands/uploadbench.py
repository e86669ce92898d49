"""``manage.py uploadbench``: what the worst practice upload a person can send costs the server.

Posts through Django's test client, in this process, on the configured database and cache (point them
at a scratch database: ``DATABASE_URL``, and Redis for the shared throttle: ``REDIS_URL``), as people
it makes for the run and removes afterwards. The uploads:

- the longest valid record the limits allow: a two-player Americana match to 501 with every seat
  choosing at random among its legal actions (the longest matches there are), the longest of the
  seeds tried that stays within ``PRACTICE_MAX_ACTIONS``;
- the same record sent again (saved already);
- the worst invalid one: that record with one more action, which the engine refuses only after
  replaying all the others;
- a body of nothing but nested brackets, as deep as the size limit lets it be.

Each is timed as a new person's first upload (server milliseconds, the database's included), then one
person sends each kind back to back: how many the server took on, how many it refused (429) and how
busy that one person kept the server. A benchmark prints numbers; it asserts nothing.
"""

import json
import logging
import random
import secrets
import statistics
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts import limits
from bench.guard import WritingBenchmark, bench_username
from gameplay.engine import get_game
from practice.uploads import PRACTICE_BUDGET
from tables.models import Table

GAME = "americana"
OPTIONS = {"players": 2, "target": 501, "jokers": False, "jack_draws_two": False, "court_follows": False}
MOST_ACTIONS = settings.PRACTICE_MAX_ACTIONS
"""The longest practice match a save may hold."""
"""The longest matches: two players, the highest target."""


def random_actions(seed: int, limit: int) -> list[dict] | None:
    """A whole match of ``OPTIONS`` with every seat acting at random, or None when it needs more than
    ``limit`` actions."""
    game = get_game(GAME)
    state = game.new_match(game.options_from_json(OPTIONS), seed)
    rng = random.Random(seed)
    actions = []
    while not game.is_over(state):
        if len(actions) == limit:
            return None
        if game.awaiting_deal(state):
            game.next_round(state)
            continue
        action = rng.choice(game.legal_actions(state))
        game.apply(state, action)
        actions.append(game.action_to_json(action))
    return actions


def upload(seed: int, actions: list[dict]) -> dict:
    finished = datetime.now(UTC) - timedelta(minutes=1)
    return {
        "game": GAME,
        "options": OPTIONS,
        "seed": seed,
        "seat": 0,
        "bots": ["hard"],
        "fast_bots": True,
        "actions": actions,
        "started_at": (finished - timedelta(hours=3)).isoformat(),
        "finished_at": finished.isoformat(),
        "bundle": "uploadbench",
    }


def long_uploads(seeds: Iterator[int], wanted: int, at_least: int) -> Iterator[dict]:
    """Uploads of matches between ``at_least`` and ``wanted`` actions long, from the seeds in turn."""
    for seed in seeds:
        actions = random_actions(seed, wanted)
        if actions is not None and len(actions) >= at_least:
            yield upload(seed, actions)


class Command(WritingBenchmark):
    help = "Measure the server's cost of the worst practice uploads, per upload and per person."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--repeat", type=int, default=5, help="Uploads timed per kind.")
        parser.add_argument(
            "--seconds", type=float, default=20.0, help="How long one person sends each kind."
        )
        parser.add_argument("--seeds", type=int, default=60, help="Seeds tried for the longest match.")

    def handle(self, *args, repeat: int, seconds: float, seeds: int, **options) -> None:
        logging.getLogger("django.request").setLevel(logging.CRITICAL)  # every refusal would be logged
        self.people = []
        try:
            self.run(repeat, seconds, seeds)
        finally:
            Table.objects.filter(host__in=self.people).delete()
            get_user_model().objects.filter(pk__in=[person.pk for person in self.people]).delete()

    def run(self, repeat: int, seconds: float, seeds: int) -> None:
        longest = max(long_uploads(iter(range(seeds)), MOST_ACTIONS - 1, 0), key=lambda u: len(u["actions"]))
        actions = longest["actions"]
        invalid = {**longest, "actions": [*actions, actions[-1]]}
        nested = "[" * settings.PRACTICE_UPLOAD_MAX_BYTES
        size = len(json.dumps(longest))
        self.stdout.write(
            f"longest valid record: {GAME} {OPTIONS['players']} players to {OPTIONS['target']}, seed "
            f"{longest['seed']}, {len(actions)} actions (limit {MOST_ACTIONS}), {size / 1000:.0f} kB"
        )

        def first_and_again(person: Client) -> tuple[float, int, float, int]:
            saved, status = self.post(person, longest)
            again, again_status = self.post(person, longest)
            return saved, status, again, again_status

        timed = [first_and_again(self.person()) for _ in range(repeat)]
        self.report("valid, saved", [(ms, status) for ms, status, _again, _status in timed])
        self.report("valid, sent again", [(again, status) for _ms, _status, again, status in timed])
        self.report(
            "invalid: the last action illegal", [self.post(self.person(), invalid) for _ in range(repeat)]
        )
        self.report(
            f"nested brackets, {len(nested) // 1000} kB",
            [self.post(self.person(), nested) for _ in range(repeat)],
        )

        self.stdout.write(f"one person sending back to back for {seconds:.0f} s:")
        fresh = long_uploads(iter(range(seeds, 10**9)), MOST_ACTIONS - 1, MOST_ACTIONS // 2)
        prepared = [next(fresh) for _ in range(16)]  # made before the clock starts
        self.flood("valid, each a new match", lambda index: prepared[index % len(prepared)], seconds)
        self.flood("invalid, the last action illegal", lambda _index: invalid, seconds)

    def person(self) -> Client:
        user = get_user_model().objects.create_user(
            bench_username(f"upload-{secrets.token_hex(4)}"), password=None
        )
        self.people.append(user)
        limits.forget(PRACTICE_BUDGET.format(user_id=user.pk))  # another database's person of that id
        client = Client(SERVER_NAME="localhost", raise_request_exception=False)
        client.force_login(user)
        return client

    def post(self, client: Client, body: dict | str) -> tuple[float, int]:
        """Server milliseconds for one upload, and the answer's status."""
        data = body if isinstance(body, str) else json.dumps(body)
        started = time.perf_counter()
        response = client.post(reverse("practice:save"), data, content_type="application/json")
        return (time.perf_counter() - started) * 1000, response.status_code

    def report(self, kind: str, results: list[tuple[float, int]]) -> None:
        times = [ms for ms, _status in results]
        statuses = sorted({status for _ms, status in results})
        self.stdout.write(
            f"  {kind}: {statistics.median(times):.1f} ms median, {max(times):.1f} ms max "
            f"({len(times)} uploads, answered {', '.join(map(str, statuses))})"
        )

    def flood(self, kind: str, body: Callable[[int], dict], seconds: float) -> None:
        """One person's uploads, one after another for ``seconds``: what the server made of them and
        how busy they kept it."""
        client = self.person()
        results = []
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            results.append(self.post(client, body(len(results))))
        wall = time.perf_counter() - started
        counts = {}
        for _ms, status in results:
            counts[status] = counts.get(status, 0) + 1
        answered = ", ".join(f"{count} × {status}" for status, count in sorted(counts.items()))
        replayed = counts.get(201, 0) + counts.get(400, 0)
        throttled = [ms for ms, status in results if status == 429]
        refusal = f"; a 429 took {statistics.median(throttled):.1f} ms" if throttled else ""
        self.stdout.write(
            f"  {kind}: {len(results)} sent ({answered}): {replayed / wall * 60:.1f} replayed a minute, "
            f"the server busy {sum(ms for ms, _status in results) / wall:.0f} ms a second{refusal}"
        )
