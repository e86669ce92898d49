"""One connection flooding a Daphne process with frames is cut off, and the other tables on that
process play on: each test times the moves of another table before and during the flood, over real
sockets, and prints the figures (machines differ too much for the figures to be asserted)."""

import json
import statistics
import threading
import time
from collections.abc import Iterator
from itertools import cycle

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from bench.management.commands.loadbench import session_cookie
from tables.consumers import TOO_MANY_FRAMES
from tests.conftest import ARTIFACTS, free_port, site_env, start_daphne, stop, wait_for_port
from tests.faults.play import ORIGIN, Tab, play_timed
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.django_db(transaction=True)

FLOOD_FRAMES = 5000
FLOOD_SECONDS = 1.0
FLOOD = [
    json.dumps({"version": 99, "type": "draw"}),  # stale
    json.dumps({"version": 0, "type": "back"}),
    json.dumps({"version": 0, "type": "steal"}),  # no such move
    "not json",
]
"""What the flooder sends, in turn: every kind of frame spends the same budget."""


@pytest.fixture
def server() -> Iterator[str]:
    """A Daphne process of the site, started as production starts it, on the test database."""
    port = free_port()
    with (ARTIFACTS / "flood-daphne.log").open("w") as log:
        process = start_daphne(port, site_env(), log, start_new_session=True)
        try:
            wait_for_port(port, process)
            yield f"ws://127.0.0.1:{port}"
        finally:
            stop(process)


def flood(url: str, cookie: str, outcome: dict) -> None:
    """Send ``FLOOD_FRAMES`` frames over ``FLOOD_SECONDS`` (or until the server closes the socket);
    note in ``outcome`` how many went out, how long until the server closed it, and its close code."""
    # Everything the server sends is read as it comes, as a page reads it (websockets otherwise stops
    # reading after 16 unread messages, and never hears the server close the socket).
    headers = {"Cookie": cookie, "Origin": ORIGIN}
    with connect(url, additional_headers=headers, max_queue=None) as socket:
        started = time.perf_counter()
        sent = 0
        try:
            for sent, frame in enumerate(cycle(FLOOD), start=1):
                socket.send(frame)
                if sent == FLOOD_FRAMES:
                    break
                if sent % 50 == 0:  # paced over the second, as a script looping in a page would be
                    time.sleep(max(0.0, started + FLOOD_SECONDS * sent / FLOOD_FRAMES - time.perf_counter()))
            while True:
                socket.recv(timeout=10)
        except ConnectionClosed as closed:
            outcome["code"] = closed.rcvd.code if closed.rcvd else None
        except TimeoutError:  # every frame answered, and the socket left open
            outcome["code"] = None
        outcome["sent"] = sent
        outcome["closed_after_ms"] = (time.perf_counter() - started) * 1000


def figures(times: list[float]) -> str:
    return f"{len(times)} moves, p50 {statistics.median(times):.1f} ms, max {max(times):.1f} ms"


@pytest.mark.parametrize("door", ["table", "lobby"])
def test_a_flood_of_frames_is_cut_off_and_the_other_tables_play_on(server, door):
    match, users = human_match("americana", 2, {"target": 501}, prefix="calm")  # a long match
    tabs = {seat: Tab(user, match.table_id) for seat, user in enumerate(users)}
    for tab in tabs.values():
        tab.open(server)
    flooded, (flooder, _other) = human_match("americana", 2, prefix="flood")
    path = f"/ws/tables/{flooded.table_id}/" if door == "table" else "/ws/lobby/"
    sockets = {seat: tab.socket for seat, tab in tabs.items()}

    play_timed(tabs, match.pk, 5)  # warm up
    before = play_timed(tabs, match.pk, 20)
    outcome: dict = {}
    flooding = threading.Thread(target=flood, args=(server + path, session_cookie(flooder), outcome))
    flooding.start()
    during: list[float] = []
    while len(during) < 10 or (flooding.is_alive() and len(during) < 60):  # while the flooder tries
        during += play_timed(tabs, match.pk, 1)
    flooding.join()
    after = play_timed(tabs, match.pk, 10)

    print(
        f"\n{door} flood: {outcome['sent']} of {FLOOD_FRAMES} frames sent before the server closed the "
        f"socket (code {outcome['code']}) {outcome['closed_after_ms']:.0f} ms after the first"
        f"\nanother table, before: {figures(before)}\n  during: {figures(during)}\n  after: {figures(after)}"
    )
    assert outcome["code"] == TOO_MANY_FRAMES
    assert outcome["sent"] < FLOOD_FRAMES  # cut off mid-flood
    assert {seat: tab.socket for seat, tab in tabs.items()} == sockets  # the other table never dropped
