"""``manage.py replaybench``: what one step of a long match's replay costs; numbers, not a test.

It plays an Americana match to 501 with easy bots in the engine, trying seeds until one lasts at
least ``--moves`` moves, and saves it as a practice match of the user ``replaybench`` (the same
seed and moves save once: a second run finds the match saved by the first). Then it times
``history.selectors.replay_step`` at the steps that show moves 10, 500, 1,000, 2,000 and the last,
each the first time it is asked (nothing cached: the cache's keys get a prefix of their own) and
again (cached), and with ``--play`` a whole Play from the first step to the last.
"""

import itertools
import statistics
import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.test.utils import override_settings
from django.utils import timezone

from bench.guard import WritingBenchmark, bench_username
from bots.arena import bot_played_actions
from gameplay.engine.replay import replay
from gameplay.models import Match
from history import selectors as history_selectors
from practice import uploads

OPTIONS = {"players": 2, "target": 501}
"""Two players to 501: the longest matches easy bots play (4 players end sooner, at 1,000–1,600 moves)."""
REPEATS = 5


def long_actions(at_least: int) -> tuple[int, list[dict]]:
    """(seed, every action) of the first match from seed 0 on that lasts ``at_least`` moves."""
    for seed in range(1000):
        actions = bot_played_actions("americana", OPTIONS, seed, ["easy", "easy"])
        if len(actions) >= at_least:
            return seed, actions
    raise ValueError(f"No seed below 1000 plays {at_least} moves.")


def milliseconds(match: Match, step: int) -> float:
    started = time.perf_counter()
    history_selectors.replay_step(match, step)
    return (time.perf_counter() - started) * 1000


def fresh_cache():
    """The site's cache under a key prefix of its own: nothing cached yet, and nobody else's keys."""
    default = {**settings.CACHES["default"], "KEY_PREFIX": f"replaybench-{uuid.uuid4().hex}"}
    return override_settings(CACHES={**settings.CACHES, "default": default})


class Command(WritingBenchmark):
    help = "Time one step of a long match's replay, at move 10, 500, 1,000, 2,000 and the last."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--moves", type=int, default=2000, help="The match lasts at least this many moves."
        )
        parser.add_argument(
            "--play", action="store_true", help="Also time every step from the first to the last."
        )

    def handle(self, *args, moves: int, play: bool, **options) -> None:
        saved, steps = self.long_match(moves)
        match = history_selectors.match_detail(match_id=saved.pk)  # as the replay's page reads it
        last_seq = match.moves_made
        self.stdout.write(
            f"match {match.pk}: {last_seq} moves, {match.rounds.count()} rounds (Americana, 2 players, 501)"
        )
        self.stdout.write("move    step    first ask (ms)    cached, median of 5 (ms)")
        for seq in sorted({seq for seq in (10, 500, 1000, 2000, last_seq) if seq <= last_seq}):
            step = steps[seq - 1]
            with fresh_cache():
                first = milliseconds(match, step)
                again = statistics.median(milliseconds(match, step) for _ in range(REPEATS))
            self.stdout.write(f"{seq:>5} {step:>7} {first:>14.1f} {again:>22.1f}")
        if play:
            with fresh_cache():
                last = history_selectors.replay_step(match, 10**9).last
                times = [milliseconds(match, step) for step in range(last + 1)]
            self.stdout.write(
                f"Play, steps 0 to {last}: {sum(times) / 1000:.1f} s in all, per step p50 "
                f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms"
            )

    def long_match(self, at_least: int) -> tuple[Match, list[int]]:
        """The saved match, and the replay's step that shows each of its moves (the deals are steps too)."""
        seed, actions = long_actions(at_least)
        user, _created = get_user_model().objects.get_or_create(username=bench_username("replay"))
        finished = timezone.now().replace(microsecond=0)
        upload = {
            "game": "americana",
            "options": OPTIONS,
            "seed": seed,
            "seat": 0,
            "bots": ["easy"],
            "actions": actions,
            "started_at": (finished - timedelta(hours=1)).isoformat(),
            "finished_at": finished.isoformat(),
            "bundle": "replaybench",
        }
        match, _saved = uploads.practice_record(user=user, upload=upload)
        moves = replay("americana", OPTIONS, seed, actions).moves
        deals = itertools.accumulate(move.dealt is not None for move in moves)
        return match, [seq + dealt for seq, dealt in enumerate(deals, start=1)]
