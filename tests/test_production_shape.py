"""The production shape (`manage.py prod`: nginx, two Daphne processes, a Celery worker with beat) boots,
plays a match against a bot to its end through nginx, and serves static files compressed and cached."""

import http.cookiejar
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest
from django.conf import settings
from websockets.sync.client import connect

from config.management.commands.loadbench import choose, session_cookie
from config.management.commands.prod import NGINX
from gameplay.models import Match
from tests.conftest import ARTIFACTS, ROOT, TEST_QUEUE, free_port, free_ports, site_env, wait_for_port
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)
VERSION = re.compile(r'name="version" value="(\d+)"')


@pytest.fixture
def production(tmp_path):
    """The shape on free ports, on the test database, its own Celery queue; stopped with its process group."""
    if not NGINX:
        pytest.skip("nginx is not installed (apt-get install nginx-light).")
    port, base = free_port(), free_ports(2)  # the two Daphnes listen on base and base + 1
    env = site_env(
        SECRET_KEY=settings.SECRET_KEY,  # the session this test signs in with is signed with it
        CELERY_QUEUE=f"{TEST_QUEUE}-prod",
        STATIC_ROOT=str(tmp_path / "static"),
        BOT_PAUSE_SECONDS="0,0.01",
        ROUND_PAUSE_SECONDS="0.05",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    log = (ARTIFACTS / "production-shape.log").open("w")
    command = ["prod", "--port", str(port), "--base-port", str(base), "--daphnes", "2"]
    shape = subprocess.Popen(
        [sys.executable, "manage.py", *command, "--run-dir", str(tmp_path / "run")],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for_port(port, shape, timeout=120)
        for daphne in (base, base + 1):
            wait_for_port(daphne, shape, timeout=60)
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(shape.pid, signal.SIGTERM)
        try:
            shape.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(shape.pid, signal.SIGKILL)
            shape.wait()
        log.close()


def test_a_match_against_a_bot_is_played_to_its_end_through_nginx(production):
    player = make_user("ana")
    cookies = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(cookies))
    name, value = session_cookie(player).split("=", 1)
    cookie = (
        0,
        name,
        value,
        None,
        False,
        "127.0.0.1",
        False,
        False,
        "/",
        True,
        False,
        None,
        False,
        None,
        None,
        {},
    )
    cookies.set_cookie(http.cookiejar.Cookie(*cookie))
    home = browser.open(f"http://{production}/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', home).group(1)
    form = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "game": "classic"}).encode()
    table_page = browser.open(f"http://{production}/tables/play-now/", data=form)
    opened = re.search(r"/tables/(\d+)/$", table_page.url)
    assert opened, table_page.url
    table_id = int(opened.group(1))

    session = "; ".join(f"{cookie.name}={cookie.value}" for cookie in cookies)
    socket = connect(
        f"ws://{production}/ws/tables/{table_id}/?lang=en",
        additional_headers={"Cookie": session, "Origin": f"http://{production}"},
    )
    rng = random.Random(7)
    deadline = time.monotonic() + 180
    with socket:
        while time.monotonic() < deadline:
            frame = socket.recv(timeout=30)
            if 'data-testid="match-over"' in frame:
                break
            versions = VERSION.findall(frame)
            move = choose(frame, rng)
            if move and versions:
                socket.send(json.dumps({"version": versions[-1], **move}))
        else:
            pytest.fail("The match did not end through nginx in time.")
    match = Match.objects.get(table_id=table_id)
    assert match.status == Match.Status.FINISHED and match.moves.filter(actor="bot").exists()


def test_static_files_come_compressed_with_far_future_caching(production):
    home = urllib.request.urlopen(f"http://{production}/").read().decode()
    stylesheet = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', home).group(1)
    request = urllib.request.Request(f"http://{production}{stylesheet}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert response.headers["Server"].startswith("nginx")  # from disk, not through Python
