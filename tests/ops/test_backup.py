"""``manage.py backup`` and ``restore`` on the real PostgreSQL: a backup taken while matches are being
played restores into a fresh database where every match replays from its moves to its stored state
and version; retention, and the refusals (SQLite, no pg_dump, a failing pg_dump, a file that is not
a dump)."""

import json
import os
import random
import stat
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from psycopg import sql
from psycopg.rows import dict_row

from accounts.models import User
from config import pgtools
from config.pgtools import Database
from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.engine.replay import replay
from gameplay.frames import ActionRefused
from gameplay.models import Match, Move, RoundResult, SeatChange
from tables import services as table_services
from tests.conftest import ROOT, database_url_for_tests
from tests.factories import make_user
from tests.faults.play import wait_for
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.django_db(transaction=True)

TABLES = [
    # (game, options, bot seats): a person in every other seat, played by a thread of the test.
    ("americana", {"players": 2}, 1),
    ("americana", {"players": 3}, 2),
    ("classic", {"players": 2, "match": "points8"}, 1),
    ("classic", {"players": 2, "match": "games1"}, 0),
    ("americana", {"players": 2}, 0),
    ("classic", {"players": 4, "match": "points8"}, 3),
]


@pytest.fixture
def brisk_play(settings):
    """Bots move every tenth of a second or so, a round's end is on show a moment, and nobody is
    stood in for (a person's seat is played by the test's thread, with no page open)."""
    settings.BOT_PAUSE_SECONDS = settings.FAST_BOT_PAUSE_SECONDS = (0.05, 0.1)
    settings.ROUND_PAUSE_SECONDS = 0.05
    settings.GONE_GRACE_SECONDS = 3600


def restored_url() -> str:
    return database_url_for_tests() + "_restored"


@pytest.fixture
def restored() -> Iterator[Database]:
    """A database beside the test database for the restore, dropped before and after."""
    database = Database.from_url(restored_url())

    def drop() -> None:
        with database.connect("postgres") as maintenance:
            maintenance.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database.name))
            )

    drop()
    yield database
    drop()


def table_with_bots(host, game: str, options: dict, bots: int) -> Match:
    """A private table of fast bots with ``host`` in seat 0 and bots in the last ``bots`` seats; the
    seats left take people of their own. Its match, started."""
    if bots == 0:
        match, _users = human_match(game, options["players"], options, prefix=host.username)
        return match
    table = gameplay_services.table_create(
        host=host, game=game, options=options, turn_clock=0, is_private=True, fast_bots=True
    )
    people = options["players"] - bots
    for position in range(1, people):
        table_services.seat_take(
            table_id=table.pk, user=make_user(f"{host.username}-{position}"), token=table.invite_token
        )
    for position in range(people, options["players"]):
        table_services.bot_add(table_id=table.pk, by=host, position=position, level="easy")
    return Match.objects.get(table=table)


class People(threading.Thread):
    """Every person's seat played through ``gameplay.services.act``, a random legal move each turn,
    as the players' pages would send them, until ``stop`` is set."""

    def __init__(self, match_ids: list[int]) -> None:
        super().__init__(name="people", daemon=True)
        self.match_ids = match_ids
        self.stop = threading.Event()
        self.moves = 0
        self.error: BaseException | None = None
        self.rng = random.Random(7)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                for match_id in self.match_ids:
                    self.turn(match_id)
                time.sleep(0.005)
        except BaseException as error:
            self.error = error
        finally:
            connection.close()

    def turn(self, match_id: int) -> None:
        match = Match.objects.get(pk=match_id)
        game = get_game(match.game)
        state = game.state_from_json(match.state)
        if match.status != Match.Status.PLAYING or game.awaiting_deal(state):
            return  # over, or the worker deals the next round
        seat = game.to_act(state)
        if not match.table.seats.filter(position=seat, user__isnull=False).exists():
            return  # a bot's turn: the worker plays it
        action = game.action_to_json(self.rng.choice(game.legal_actions(state)))
        try:
            gameplay_services.act(match_id=match_id, seat=seat, action=action, expected_version=match.version)
        except ActionRefused:
            return  # a bot or a deal got in first
        self.moves += 1


def replays_whole(database: Database) -> dict[str, int]:
    """Every match in ``database`` replays from its seed and moves to its stored state and version,
    the move log numbered 1..n with nothing past the match's count, one score-sheet row per round
    ended; how many matches of each status there are."""
    tables = {model: model._meta.db_table for model in (Match, Move, RoundResult, SeatChange)}
    with database.connect() as restored, restored.cursor(row_factory=dict_row) as cursor:
        matches = cursor.execute(f"SELECT * FROM {tables[Match]} ORDER BY id").fetchall()
        moves = defaultdict(list)
        for row in cursor.execute(
            f"SELECT match_id, seq, seat, action FROM {tables[Move]} ORDER BY match_id, seq"
        ):
            moves[row["match_id"]].append(row)
        rounds = dict(
            restored.execute(
                f"SELECT match_id, count(*) FROM {tables[RoundResult]} GROUP BY match_id"
            ).fetchall()
        )
        (seat_changes,) = restored.execute(f"SELECT count(*) FROM {tables[SeatChange]}").fetchone()
    assert seat_changes == 0, "the version counts moves, deals and the end only: no seat changed hands"
    assert set(moves) <= {match["id"] for match in matches}
    statuses: dict[str, int] = defaultdict(int)
    for match in matches:
        log = moves[match["id"]]
        assert [move["seq"] for move in log] == list(range(1, match["moves_made"] + 1)), match["id"]
        replayed = replay(match["game"], match["options"], match["seed"], [move["action"] for move in log])
        game, state = replayed.game, replayed.state
        assert [(move.seat, move.action) for move in replayed.moves] == [
            (move["seat"], move["action"]) for move in log
        ]
        dealt = [move.dealt for move in replayed.moves if move.dealt is not None]
        if game.state_to_json(state) != match["state"] and game.awaiting_deal(state):
            dealt.append(game.next_round(state))  # the next round was dealt after the last move
        assert game.state_to_json(state) == match["state"], f"match {match['id']} replays to its state"
        ended = match["status"] == Match.Status.ABORTED
        assert match["version"] == len(log) + len(dealt) + ended, f"match {match['id']}: its version"
        assert json.loads(json.dumps(dealt[-1] if dealt else [])) == match["deal_events"]
        assert rounds.get(match["id"], 0) == sum(move.round_over is not None for move in replayed.moves)
        assert game.is_over(state) == (match["status"] == Match.Status.FINISHED)
        statuses[match["status"]] += 1
    return dict(statuses)


def test_a_backup_taken_during_play_restores_to_matches_that_replay(
    brisk_play, celery_worker, restored, tmp_path
):
    matches = [
        table_with_bots(make_user(f"h{index}"), game, options, bots)
        for index, (game, options, bots) in enumerate(TABLES)
    ]
    people = People([match.pk for match in matches])
    people.start()
    try:
        wait_for(
            lambda: (
                Move.objects.filter(match__in=matches).values("match").distinct().count() == len(matches)
                and Move.objects.count() >= 40 * len(matches)
            ),
            120,
            "every match has made some moves",
        )
        closed = matches[0]  # a moderator stops one mid-play: aborted matches replay too
        gameplay_services.table_close(table_id=closed.table_id, reason="Closed by a moderator.")
        before, people_before = Move.objects.count(), people.moves
        out = StringIO()
        call_command("backup", directory=tmp_path, keep=3, stdout=out)
        after = Move.objects.count()
        wait_for(lambda: people.moves > people_before, 30, "the people kept playing")
    finally:
        people.stop.set()
        people.join(30)
    assert people.error is None, people.error
    assert after > before, "moves were made while the backup ran"
    (dump,) = tmp_path.iterdir()
    assert stat.S_IMODE(dump.stat().st_mode) == 0o600
    assert dump.read_bytes().startswith(b"PGDMP")
    assert f"to {dump} (" in out.getvalue()

    out = StringIO()
    call_command(
        "restore", str(dump), database_url=restored_url(), create_db=True, interactive=False, stdout=out
    )
    report = out.getvalue()
    assert f"Created the database {restored}." in report
    assert "Its migrations are exactly this code's." in report

    statuses = replays_whole(restored)
    assert sum(statuses.values()) == Match.objects.count() == len(matches)
    assert statuses.get(Match.Status.PLAYING, 0) >= 3, f"matches mid-play at the backup: {statuses}"
    assert statuses[Match.Status.ABORTED] == 1
    with restored.connect() as database:
        (restored_moves,) = database.execute(f"SELECT count(*) FROM {Move._meta.db_table}").fetchone()
    assert before <= restored_moves <= after, "the dump is one moment between the two counts"
    assert f"{len(matches)} matches, {restored_moves} moves and {User.objects.count()} users" in report


def test_retention_keeps_the_newest_dumps_and_nothing_else_is_touched(tmp_path):
    old = [tmp_path / f"septica-2024010{day}T033000Z.dump" for day in range(1, 6)]
    others = [
        tmp_path / name
        for name in (
            "notes.txt",
            "septica-latest.dump",
            "other-20240101T033000Z.dump",
            "septica-20240101.dump",
        )
    ]
    killed, writing = (tmp_path / f".septica-2024010{day}T033000Z.dump.partial" for day in (1, 2))
    for path in [*old, *others, killed, writing]:
        path.write_bytes(b"PGDMP")
    a_day_ago = time.time() - 24 * 3600 - 60
    os.utime(killed, (a_day_ago, a_day_ago))  # a backup killed yesterday; ``writing`` is another's, now
    out = StringIO()
    call_command("backup", directory=tmp_path, keep=3, stdout=out)
    new = [path for path in tmp_path.iterdir() if path not in [*old, *others, writing]]
    assert len(new) == 1 and new[0].name.startswith("septica-20")
    assert sorted(tmp_path.iterdir()) == sorted([*new, *old[3:], *others, writing])
    for gone in old[:3]:
        assert f"Deleted the old backup {gone.name}" in out.getvalue()
    assert f"Deleted {killed.name}, left half-written" in out.getvalue()


def test_a_failing_pg_dump_is_reported_and_leaves_no_dump(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "pg_dump"
    fake.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case $a in --file=*) printf PGDMP-half > "${a#--file=}";; esac; done\n'
        "echo 'pg_dump: error: aborting because of server version mismatch' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PG_BIN_DIR", str(bin_dir))
    backups = tmp_path / "backups"
    with pytest.raises(CommandError, match="server version mismatch"):
        call_command("backup", directory=backups)
    assert list(backups.iterdir()) == [], "no file at all, whole-looking or partial"


def test_no_pg_dump_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setattr(pgtools, "DEBIAN_BIN_DIRS", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CommandError, match="apt-get install postgresql-client"):
        call_command("backup", directory=tmp_path)
    monkeypatch.setenv("PG_BIN_DIR", str(tmp_path))
    with pytest.raises(CommandError, match=f"PG_BIN_DIR is {tmp_path}, but there is no pg_dump there"):
        call_command("backup", directory=tmp_path)


def test_restore_refuses_a_file_that_is_not_a_dump_and_asks_first(tmp_path, monkeypatch):
    plain = tmp_path / "septica.sql"
    plain.write_text("-- PostgreSQL database dump\nDROP TABLE gameplay_match;\n")
    with pytest.raises(CommandError, match="is not a pg_dump custom-format archive"):
        call_command("restore", str(plain), interactive=False)
    dump = tmp_path / "septica-20240101T033000Z.dump"
    dump.write_bytes(b"PGDMP")
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(CommandError, match="Nothing was restored"):
        call_command("restore", str(dump))
    assert Match._meta.db_table in connection.introspection.table_names()


def test_backup_refuses_the_embedded_sqlite_database(tmp_path):
    env = {name: value for name, value in os.environ.items() if name not in {"DATABASE_URL", "REDIS_URL"}}
    done = subprocess.run(
        [sys.executable, "manage.py", "backup", "--dir", str(tmp_path)],
        cwd=ROOT,
        env={**env, "DEBUG": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "Backups need PostgreSQL; the embedded SQLite file can be copied while the site is stopped" in (
        done.stderr
    )
    assert list(Path(tmp_path).iterdir()) == []
