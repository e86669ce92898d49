"""The embedded default starts with nothing but Python: SQLite, in-memory layers, in-process worker."""

import gzip
import http.cookiejar
import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from tests.conftest import ROOT, free_port, stop, wait_for_port


def embedded_env(database: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    # The forms are sent at once, faster than a person types (the least time is tested on its own).
    return {
        **env,
        "DATABASE_URL": f"sqlite:///{database}",
        "DEBUG": "1",
        "REGISTRATION_MIN_FORM_SECONDS": "0",
    }


def test_embedded_mode_serves_pages_and_runs_tasks_in_process(tmp_path):
    env = embedded_env(tmp_path / "site.sqlite3")
    for command in (["migrate", "--noinput", "-v0"], ["buildpractice"]):  # as `make run` does
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True)
    port = free_port()
    log_path = tmp_path / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, server)
            base = f"http://127.0.0.1:{port}"
            browser = urllib.request.build_opener(
                urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
            )

            home = browser.open(base + "/").read().decode()
            assert "Play Șeptică online" in home
            assert browser.open(base + "/static/vendor/htmx/htmx.min.js").status == 200

            # The practice's Pyodide goes out compressed to a browser that takes gzip, as it is.
            wasm = "static/vendor/pyodide-314.0.7/pyodide.asm.wasm"
            answer = browser.open(
                urllib.request.Request(f"{base}/{wasm}", headers={"Accept-Encoding": "gzip"})
            )
            body = answer.read()
            assert (
                answer.headers["Content-Encoding"] == "gzip" and len(body) < (ROOT / wasm).stat().st_size / 2
            )
            assert gzip.decompress(body) == (ROOT / wasm).read_bytes()

            def post(path: str, fields: dict, form: str = "") -> str:
                """Send ``fields`` to ``path`` as the form on ``form`` (``path`` itself by default) does,
                with its hidden fields (the CSRF token, the registration's signed moment)."""
                page = browser.open(base + (form or path)).read().decode()
                hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
                data = urllib.parse.urlencode({**hidden, **fields}).encode()
                return browser.open(urllib.request.Request(base + path, data=data)).read().decode()

            password = "embedded-and-easy-31"
            welcome = post(
                "/accounts/register/",
                {
                    "username": "solo",
                    "email": "solo@example.com",
                    "password1": password,
                    "password2": password,
                },
            )
            assert "Welcome, solo!" in welcome
            # The confirmation mail, printed readable on the console by the in-process worker: its link works.
            confirm_link = re.compile(rf"{re.escape(base)}(/accounts/confirm/\S+/)")
            deadline = time.monotonic() + 20
            while not confirm_link.search(log_path.read_text()) and time.monotonic() < deadline:
                time.sleep(0.2)
            link = confirm_link.search(log_path.read_text())
            assert link, log_path.read_text()[-2000:]
            assert "Your email address is confirmed" in browser.open(base + link.group(1)).read().decode()
            assert 'data-testid="leaderboard"' in browser.open(base + "/leaderboard/").read().decode()
            post("/accounts/password/reset/", {"email": "solo@example.com"})

            # The console mail backend prints the reset mail from the in-process Celery worker, which
            # then logs the task as done (a moment later: wait for both).
            sent = "To: solo@example.com"
            succeeded = re.compile(r"Task accounts\.tasks\.send_email\[[-0-9a-f]+\] succeeded")
            deadline = time.monotonic() + 20
            output = ""
            while not (sent in output and succeeded.search(output)) and time.monotonic() < deadline:
                time.sleep(0.2)
                output = log_path.read_text()
            assert sent in output, output[-2000:]
            assert succeeded.search(output), output[-2000:]

            # The in-process worker prepares the person's download; then the account closes.
            post("/accounts/data/prepare/", {}, form="/accounts/data/")
            link = panel = None
            deadline = time.monotonic() + 60  # a wait for the in-process worker, not a measure of speed
            while link is None and time.monotonic() < deadline:
                time.sleep(0.2)
                page = browser.open(base + "/accounts/data/").read().decode()
                panel = re.search(r'<div id="data-exports".*?</div>', page, re.DOTALL)
                link = re.search(r'href="(/accounts/data/\d+/download/)"', page)
            shown = " ".join(re.sub(r"<[^>]+>", " ", panel.group(0)).split()) if panel else "no panel"
            errors = [
                line for line in log_path.read_text().splitlines() if "export" in line or "Error" in line
            ]
            assert link, (shown, errors[-10:])
            archive = zipfile.ZipFile(io.BytesIO(browser.open(base + link.group(1)).read()))
            assert json.loads(archive.read("data.json"))["profile"]["username"] == "solo"
            goodbye = post("/accounts/close/", {"password": password, "understood": "on"})
            assert "Your account is closed" in goodbye and 'data-testid="profile-link"' not in goodbye
        finally:
            stop(server)


RATE_ON_SQLITE = """
from gameplay import services
from ratings import services as ratings
from ratings.models import Rating
from tables import services as tables
from gameplay.models import Match
from tests.factories import make_user
from tests.history.helpers import play_out

ana, ion = make_user("ana"), make_user("ion")  # established: confirmed, a week old
table = services.table_create(
    host=ana, game="classic", options={"players": 2}, turn_clock=45, is_private=False, rated=True
)
tables.seat_take(table_id=table.pk, user=ion)
match = play_out(Match.objects.get(table=table))
live = sorted(Rating.objects.values_list("user__username", "mu", "sigma", "matches"))
assert [row[3] for row in live] == [1, 1], live
ratings.ratings_rebuild()
assert sorted(Rating.objects.values_list("user__username", "mu", "sigma", "matches")) == live
print("rated", live)
"""


def on_sqlite(tmp_path, script: str) -> str:
    """``script`` run by ``manage.py shell`` on a new embedded database; what it printed."""
    env = embedded_env(tmp_path / "site.sqlite3")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_embedded_database_rates_a_match_and_rebuilds_the_same(tmp_path):
    """On SQLite the live update runs as the last move commits, and a rebuild gives the same numbers."""
    assert "rated [('ana'" in on_sqlite(tmp_path, RATE_ON_SQLITE)


PAIR_ON_SQLITE = """
from accounts.models import User
from social import services
from social.models import PoolEntry
from tables.models import Table

ana, ion = (User.objects.create_user(name, f"{name}@ex.com", "pw-for-the-smoke-1") for name in ("ana", "ion"))
services.pool_join(user=ana, game="americana", players=2, length=101, fill_with_bots=False)
entry = services.pool_join(user=ion, game="americana", players=2, length=101, fill_with_bots=False)
table = Table.objects.get(pk=entry.table_id)
assert table.status == Table.Status.PLAYING, table.status
assert sorted(seat.user.username for seat in table.seats.all()) == ["ana", "ion"]
print("paired", table.pk)
"""


def test_the_embedded_database_pairs_two_people_from_the_pool(tmp_path):
    """SQLite has no row locks to skip: the pool pairs there all the same (one process, one writer)."""
    assert "paired" in on_sqlite(tmp_path, PAIR_ON_SQLITE)


CHAT_ON_SQLITE = """
from accounts.models import User
from chat import services
from chat.models import BannedWord, ChatMessage
from chat.services import ChatRefused
from social import services as social_services
from tables.models import Table

ana, ion = (User.objects.create_user(name, f"{name}@ex.com", "pw-for-the-smoke-1") for name in ("ana", "ion"))
social_services.pool_join(user=ana, game="americana", players=2, length=101, fill_with_bots=False)
table = Table.objects.get(pk=social_services.pool_join(
    user=ion, game="americana", players=2, length=101, fill_with_bots=False
).table_id)
said = services.chat_say(table_id=table.pk, user=ana, phrase="gg")
try:
    services.chat_say(table_id=table.pk, user=ana, phrase="gg")
except ChatRefused as refusal:
    print("refused", refusal.explain())
print("said", said.room, said.phrase, said.match_id is not None, ChatMessage.objects.count())
"""


def test_the_embedded_database_keeps_a_tables_chat(tmp_path):
    """The chat's budgets and rows work on the embedded default too (local cache, SQLite)."""
    printed = on_sqlite(tmp_path, CHAT_ON_SQLITE)
    assert "said players gg True 1" in printed
    assert "refused You have just said that." in printed


TOURNAMENT_ON_SQLITE = """
from datetime import timedelta

from django.utils import timezone

from tests.tournaments.conftest import entered, established, open_tables, play_out, tournament
from tournaments import services
from tournaments.models import Entry, Tournament, Trophy

ana, ion = established("ana"), established("ion")
arena = tournament(starts_in=timedelta(seconds=-1))
for person in (ana, ion):
    services.tournament_join(user=person, tournament_id=arena.pk)
services.tick()  # starts it and seats the two
(table_id,) = open_tables(arena)
play_out(table_id)  # the match's end scores it
Tournament.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
services.tick()  # ends it
points = sorted(Entry.objects.filter(tournament=arena).values_list("points", flat=True))
status = Tournament.objects.get(pk=arena.pk).status
print("ended", status, "points", *points, "trophies", Trophy.objects.count())
"""


def test_the_embedded_database_runs_an_arena_from_the_start_to_the_trophies(tmp_path):
    """SQLite has no row locks to skip: a tournament starts, pairs, scores and ends there all the same."""
    printed = on_sqlite(tmp_path, TOURNAMENT_ON_SQLITE)
    # One match: a win (2 and 0) or a level result (1 each); both played, so both are on the podium.
    assert (
        "ended finished points 0 2 trophies 2" in printed or "ended finished points 1 1 trophies 2" in printed
    )
