"""A Daphne restarted mid-round of an arena, on PostgreSQL and Redis: the match that ends while the
server is down scores once and seats whoever waited, and the pages that reconnect to the new server
are sent to their new table at once or shown the standing, with nobody paused meanwhile.

The test starts its own Daphne processes, each in a session of its own, and kills only those, by id.
The tournament's services run here, in the test's process: the pairing does not need Daphne."""

import json
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from bench.management.commands.loadbench import session_cookie
from tests.conftest import free_port, start_daphne, wait_for_port
from tests.faults.play import connect_when_served, wait_for
from tests.faults.stack import START_TIMEOUT, Stack
from tournaments import services
from tournaments.models import Entry, Pairing, Score, Tournament

from .conftest import entered, established, open_tables, play_out, tournament
from .test_faults import everyone_once

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

QUIET_HEARTBEAT = {"PRESENCE_HEARTBEAT_SECONDS": "600", "TOURNAMENT_SEEN_EVERY_SECONDS": "600"}
"""No heartbeat in the servers during the test: what a page is told on reconnecting, it is told as it
connects."""

FRAME_SECONDS = 15.0
"""How long a page may wait for a frame the server owes it."""

STANDING_ROW = re.compile(
    r'<tr data-user="(?P<user>\d+)".*?<td class="num">(?P<points>-?\d+)</td>\s*'
    r'<td class="num">(?P<matches>\d+)</td>',
    re.DOTALL,
)
"""A row of the live part's standing: the person, their points and their matches."""


class Servers(Stack):
    """The test's Daphne processes, each started on the port it is given, so a restarted server
    answers at the address the pages had."""

    def daphne_on(self, port: int) -> subprocess.Popen:
        """A new Daphne listening on ``port``, once it listens."""
        process, _log = self._spawn(
            lambda log: start_daphne(port, self.env, log, start_new_session=True), "daphne"
        )
        wait_for_port(port, process, START_TIMEOUT)
        return process


@pytest.fixture
def servers(transactional_db, tmp_path, request) -> Iterator[Servers]:
    """Daphne processes for one test, on the test database; all ended when the test ends."""
    if settings.EMBEDDED:
        pytest.skip("A restarted Daphne needs REDIS_URL and PostgreSQL (DATABASE_URL).")
    running = Servers(name=request.node.name, workdir=tmp_path)
    running.env.update(QUIET_HEARTBEAT)
    try:
        yield running
    finally:
        running.close()


class TournamentPage:
    """A person's tournament page: one socket at a time and the frames it was sent. Like
    tournament.js, it opens a new socket to the same address once the server is back."""

    def __init__(self, user, tournament_id: int) -> None:
        self.user_id = user.pk
        self.cookie = session_cookie(user)
        self.path = f"/ws/tournaments/{tournament_id}/?lang=en"
        self.socket: ClientConnection | None = None
        self.opened = ExitStack()
        self.heard: list[dict] = []
        """The frames of the socket open now, in order."""

    def open(self, url: str, timeout: float = FRAME_SECONDS) -> None:
        """Connect to the server at ``url``, trying again until ``timeout`` while it refuses."""
        self.close()
        self.socket = connect_when_served(self.opened, f"{url}{self.path}", self.cookie, timeout)

    def close(self) -> None:
        self.opened.close()
        self.socket, self.heard = None, []

    def frame(self, kind: str, timeout: float = FRAME_SECONDS) -> dict:
        """The first frame of ``kind`` this socket was sent, waiting up to ``timeout`` for it."""
        deadline = time.monotonic() + timeout
        while (found := self._heard(kind)) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"Person {self.user_id}: no {kind!r} frame within {timeout:g} s.")
            try:
                self.heard.append(json.loads(self.socket.recv(timeout=left)))
            except TimeoutError:
                continue
        return found

    def hung_up(self, timeout: float = FRAME_SECONDS) -> list[dict]:
        """Every frame the socket was sent, once the server has hung up (within ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.heard.append(json.loads(self.socket.recv(timeout=max(0.0, deadline - time.monotonic()))))
            except ConnectionClosed:
                return self.heard
            except TimeoutError:
                raise AssertionError(f"Person {self.user_id}: the server never hung up.") from None

    def _heard(self, kind: str) -> dict | None:
        return next((frame for frame in self.heard if frame.get("kind") == kind), None)


def standing_shown(frame: dict) -> dict[int, tuple[int, int]]:
    """A live frame's standing: person → (points, matches)."""
    return {
        int(row["user"]): (int(row["points"]), int(row["matches"]))
        for row in STANDING_ROW.finditer(frame["html"])
    }


def kinds(frames: list[dict]) -> set[str]:
    """What the frames were: "live" (the standing), "go" (to a table)."""
    return {frame.get("kind") for frame in frames}


def test_a_daphne_killed_mid_round_loses_no_seat_and_the_reconnected_pages_go_on(servers):
    event = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))
    people = [established(name, rating=1500) for name in ("ana", "ion", "eva")]
    for person in people:
        entered(event, person)
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    first = servers.daphne_on(port)
    pages = {person.pk: TournamentPage(person, event.pk) for person in people}
    for page in pages.values():
        page.open(url)
        page.frame("live")  # in the tournament's group: the seating's news reaches it

    services.tick()
    ((first_table, seated),) = open_tables(event).items()
    (waiting,) = set(pages) - set(seated)
    for user_id in seated:
        assert pages[user_id].frame("go")["url"] == f"/tables/{first_table}/"

    Servers.crash(first)
    down_at = timezone.now()
    told_to_go = {user_id for user_id, page in pages.items() if "go" in kinds(page.hung_up())}
    assert told_to_go == set(seated)

    play_out(first_table)  # while the server is down: the score seats the one who waited
    ((second_table, reseated),) = open_tables(event).items()
    assert waiting in reseated and second_table != first_table
    (left_waiting,) = set(pages) - set(reseated)

    servers.daphne_on(port)
    for page in pages.values():
        page.open(url)
    for user_id in reseated:
        assert pages[user_id].frame("go")["url"] == f"/tables/{second_table}/"  # told on connecting
    entries = {entry.user_id: entry for entry in Entry.objects.filter(tournament=event)}
    for page in pages.values():
        assert standing_shown(page.frame("live")) == {
            user_id: (entry.points, entry.matches) for user_id, entry in entries.items()
        }
    assert "go" not in kinds(pages[left_waiting].heard)
    assert sorted(entries[user_id].matches for user_id in pages) == [0, 1, 1]
    assert sum(entries[user_id].points for user_id in seated) == 2  # a win (2 and 0) or a draw (1 each)

    # Nobody paused: the grace covered the restart, and the new server heard every page connect.
    wait_for(
        lambda: all(entry.seen_at > down_at for entry in Entry.objects.filter(tournament=event)),
        FRAME_SECONDS,
        "the new server says every page is open",
    )
    assert not Entry.objects.filter(tournament=event, paused=True).exists()
    services.tick()  # nothing left to score, and the one waiting cannot make a table alone
    assert everyone_once(event) == dict.fromkeys(reseated, second_table)
    assert Pairing.objects.get(table_id=first_table).scored_at is not None
    assert sorted(
        Score.objects.filter(pairing__table_id=first_table).values_list("entry__user_id", flat=True)
    ) == sorted(seated)
    assert Score.objects.filter(tournament=event).count() == 2
