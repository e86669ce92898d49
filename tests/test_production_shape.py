"""The production shape (`manage.py prod`: nginx, two Daphne processes, a Celery worker with beat) boots,
plays a match against a bot to its end through nginx, serves static files compressed and cached, spreads
the lobby's sockets over its servers, counts logins by the address nginx saw and keeps each address's
handshakes, open sockets and page requests within their budgets."""

import http.client
import http.cookiejar
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from accounts.services import bot_account_register
from api import services as api_services
from bench.management.commands.loadbench import choose, session_cookie
from config.management.commands.prod import NGINX
from gameplay import services as gameplay_services
from gameplay.models import Match, SeatChange
from tables import services as table_services
from tests.conftest import (
    ARTIFACTS,
    ROOT,
    TEST_QUEUE,
    established_to,
    free_port,
    free_ports,
    site_env,
)
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)
VERSION = re.compile(r'name="version" value="(\d+)"')
LOGIN_LIMIT = 3


@dataclass(frozen=True)
class Shape:
    address: str
    """nginx's ``host:port``."""
    daphne_ports: tuple[int, ...]

    def __str__(self) -> str:
        return self.address


@pytest.fixture(scope="module")
def production(django_db_setup, tmp_path_factory) -> Iterator[Shape]:
    """The shape on free ports, on the test database, its own Celery queue; stopped with its process
    group. Booted once for the module's tests (each cleans the database after itself as usual)."""
    if not NGINX:
        pytest.skip("nginx is not installed (apt-get install nginx-light).")
    tmp_path = tmp_path_factory.mktemp("production")
    port, base = free_port(), free_ports(2)  # the two Daphnes listen on base and base + 1
    env = site_env(
        SECRET_KEY=settings.SECRET_KEY,  # the session this test signs in with is signed with it
        CELERY_QUEUE=f"{TEST_QUEUE}-prod",
        STATIC_ROOT=str(tmp_path / "static"),
        BOT_PAUSE_SECONDS="0,0.01",
        ROUND_PAUSE_SECONDS="0.05",
        LOGIN_ATTEMPTS_LIMIT=str(LOGIN_LIMIT),
        # The match below is played at machine speed, far faster than any person sends frames.
        SOCKET_FRAMES_PER_SECOND="10000",
        SOCKET_FRAMES_BURST="10000",
    )
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
        deadline = time.monotonic() + 180
        while "The site is ready" not in (ARTIFACTS / "production-shape.log").read_text(errors="replace"):
            assert shape.poll() is None and time.monotonic() < deadline, "the shape did not get ready"
            time.sleep(0.2)
        yield Shape(f"127.0.0.1:{port}", (base, base + 1))
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


def test_the_example_bot_plays_a_whole_match_through_nginx(production):
    """``examples/septica_bot.py`` as its README runs it, with no Django settings in its environment:
    it takes the seat a host keeps for it, reads its match's stream through nginx (lines passed on as
    they come, or it could never move) and plays every one of its turns itself against the site's
    normal bot, then exits."""
    owner, host = make_user("ion"), make_user("ana")
    bot = bot_account_register(owner=owner, username="exemplu", description="The repository's example.")
    secret = api_services.token_create(owner=owner, holder_id=bot.pk, name="example", scopes=["bot"], days=30)
    table = gameplay_services.table_create(
        host=host,
        game="classic",
        options={"players": 2, "match": "games1"},
        turn_clock=45,
        is_private=False,
        fast_bots=True,
    )
    # The host's own seat goes to the site's normal bot (as a moderator's replacement gives it), so the
    # match is the example bot's against the site's; the bot account's seat is kept for it.
    gameplay_services.player_replace_with_bot(table_id=table.pk, position=0)
    table_services.seat_bot_account(table_id=table.pk, by=host, bot_user=bot, position=1)
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO")}
    played = subprocess.run(
        [sys.executable, "examples/septica_bot.py", "--once", "--poll", "0.5"],
        cwd=ROOT,
        env={**env, "SEPTICA_URL": f"http://{production}", "SEPTICA_TOKEN": secret.secret},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert played.returncode == 0, played.stderr
    assert "choosing as the site's normal bot" in played.stderr and "finished" in played.stderr
    match = Match.objects.get(table_id=table.pk)
    assert match.status == Match.Status.FINISHED
    assert set(match.moves.filter(seat=0).values_list("actor", flat=True)) == {"bot"}
    assert set(match.moves.filter(seat=1).values_list("actor", flat=True)) == {"player"}
    assert not SeatChange.objects.filter(match=match, seat=1).exists()  # never stood in for


def test_static_files_come_compressed_with_far_future_caching(production):
    home = urllib.request.urlopen(f"http://{production}/").read().decode()
    stylesheet = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', home).group(1)
    request = urllib.request.Request(f"http://{production}{stylesheet}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert response.headers["Server"].startswith("nginx")  # from disk, not through Python


def test_lobby_sockets_are_spread_over_the_servers(production):
    if not Path("/proc/net/tcp").exists():
        pytest.skip("Counts connections in Linux's /proc/net/tcp.")
    before = {port: established_to(port) for port in production.daphne_ports}
    with ExitStack() as sockets:
        for _ in range(6):
            sockets.enter_context(lobby_socket(production))
        gained = {port: established_to(port) - before[port] for port in production.daphne_ports}
    assert all(count >= 2 for count in gained.values()), gained  # not all six on one server


def test_a_forged_x_forwarded_for_does_not_dodge_the_login_limit(production):
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    login = f"http://{production}/accounts/login/"
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', browser.open(login).read().decode())

    def log_in(username: str, forged: str) -> int:
        form = {"csrfmiddlewaretoken": token.group(1), "username": username, "password": "wrong-password"}
        request = urllib.request.Request(
            login, data=urllib.parse.urlencode(form).encode(), headers={"X-Forwarded-For": forged}
        )
        try:
            return browser.open(request).status
        except urllib.error.HTTPError as error:
            return error.code

    # Each try another account, each claiming to come from another address: one address all the same.
    for n in range(LOGIN_LIMIT):
        log_in(f"victim{n}", f"198.51.100.{n + 1}")
    assert log_in("one-more", "198.51.100.99") == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}


ELSEWHERE = ("127.0.0.2", 0)
"""Another address of this machine: nginx budgets each address apart, this machine's as a browser's,
so a crowd from here leaves 127.0.0.1's budget whole."""


def lobby_socket(production: Shape, **connection):
    """A websocket to the lobby through nginx (``connection``: websockets' ``connect`` options)."""
    origin = {"Origin": f"http://{production}"}
    return connect(f"ws://{production}/ws/lobby/", additional_headers=origin, open_timeout=30, **connection)


def handshake(production: Shape, stack: ExitStack | None = None) -> int:
    """The status of one websocket handshake to the lobby from ``ELSEWHERE`` (101 when it opened);
    the socket is kept open on ``stack`` if given, else closed at once."""
    try:
        socket = lobby_socket(production, source_address=ELSEWHERE)
    except InvalidStatus as refused:
        return refused.response.status_code
    if stack is not None:
        stack.enter_context(socket)
    else:
        socket.close()
    return 101


def page_request(production: Shape) -> int:
    host, port = production.address.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30, source_address=ELSEWHERE)
    try:
        connection.request("GET", "/accounts/login/")
        return connection.getresponse().status
    finally:
        connection.close()


def test_one_address_crowding_the_doors_is_refused_with_429_and_another_is_not(production):
    with ThreadPoolExecutor(max_workers=40) as crowd:
        handshakes = Counter(crowd.map(lambda _: handshake(production), range(80)))
        pages = Counter(crowd.map(lambda _: page_request(production), range(200)))
    assert handshakes[101] >= 30 and handshakes[429] > 0, handshakes  # a burst of 30, then 5 a second
    assert pages[200] >= 100 and pages[429] > 0, pages  # a burst of 100, then 20 a second
    with lobby_socket(production):  # from 127.0.0.1: a budget of its own
        pass


def test_one_address_holds_at_most_fifty_sockets_open(production):
    time.sleep(7)  # the handshakes' budget, spent by the test before (if it ran), full again
    statuses = []
    with ExitStack() as sockets:
        for _ in range(51):
            time.sleep(0.25)  # within the 5 handshakes a second
            statuses.append(handshake(production, sockets))
    assert statuses == [101] * 50 + [429]
