"""``manage.py exportbench``: what a heavy player's download and closing cost; numbers, not a test.

It makes a person with ``--matches`` finished matches (Americana to 101 for two, played by easy bots
in the engine and saved as practice matches, so every move and score sheet row is real), ``--lines``
chat lines and ``--sessions`` other people's sessions beside three of theirs. Then it times building
the download (``privacy.export.archive``: the queries, the seconds, the bytes) and closing the
account (``privacy.services.account_erase``: the seats renamed, every session looked at).
"""

import time
import uuid
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.test.utils import override_settings
from django.utils import timezone

from bench.guard import WritingBenchmark, bench_username
from bots.arena import bot_played_actions
from chat.models import ChatMessage, Room
from gameplay.models import Match, Move
from practice import uploads
from privacy import export, services

OPTIONS = {"players": 2, "target": 101}


class Command(WritingBenchmark):
    help = "Time a heavy player's data download and account closing."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--matches", type=int, default=300)
        parser.add_argument("--lines", type=int, default=2000)
        parser.add_argument("--sessions", type=int, default=10_000)

    def handle(self, *args, matches: int, lines: int, sessions: int, **options) -> None:
        person = self.heavy_player(matches, lines, sessions)
        moves = Move.objects.filter(match__participants__user=person).count()
        self.stdout.write(
            f"{person}: {matches} matches, {moves} moves, {lines} chat lines; {sessions + 3} sessions"
        )
        queries = []
        with connection.execute_wrapper(
            lambda execute, sql, *rest: queries.append(sql) or execute(sql, *rest)
        ):
            started = time.perf_counter()
            archive = export.archive(person)
            built = time.perf_counter() - started
        self.stdout.write(
            f"download: {built:.2f} s, {len(queries)} queries, {len(archive) / 1024:.0f} KiB zipped"
        )
        started = time.perf_counter()
        services.account_erase(user=person)
        self.stdout.write(f"closing: {time.perf_counter() - started:.2f} s (every session looked at)")

    def heavy_player(self, matches: int, lines: int, sessions: int):
        run = uuid.uuid4().hex[:8]
        person = get_user_model().objects.create_user(
            bench_username(f"export-{run}"), f"{run}@example.com", uuid.uuid4().hex
        )
        finished = timezone.now().replace(microsecond=0)
        # an upload costs a share of the burst, so the refill (not the burst) makes saving unlimited
        unlimited = {"PRACTICE_UPLOADS_PER_HOUR": 10**15, "PRACTICE_UPLOAD_BURST": 10}
        with override_settings(**unlimited):
            for seed in range(matches):
                upload = {
                    "game": "americana",
                    "options": OPTIONS,
                    "seed": seed,
                    "seat": 0,
                    "bots": ["easy"],
                    "actions": bot_played_actions("americana", OPTIONS, seed, ["easy", "easy"]),
                    "started_at": (finished - timedelta(hours=1)).isoformat(),
                    "finished_at": finished.isoformat(),
                    "bundle": run,
                }
                uploads.practice_record(user=person, upload=upload)
        played = list(Match.objects.filter(participants__user=person).select_related("table"))
        ChatMessage.objects.bulk_create(
            ChatMessage(
                table=played[n % len(played)].table,
                match=played[n % len(played)],
                move_index=n,
                room=Room.PLAYERS,
                author=person,
                text=f"line {n}",
                shown=f"line {n}",
            )
            for n in range(lines)
        )
        for n in range(sessions + 3):
            store = SessionStore()
            store["_auth_user_id"] = str(person.pk if n < 3 else -n)
            store.create()
        return person
