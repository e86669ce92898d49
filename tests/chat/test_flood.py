"""A flood of chat frames from one player's page, against the site's real processes: the chat's budget
lets CHAT_MESSAGES_PER_10_SECONDS of them through and refuses the rest (or the socket's frame budget
closes the socket first, which refuses them too), while the table plays on: every seat's page gets
every move. The time from a move sent to every seat showing it, before and during the flood,
is printed and kept in test-artifacts/chat-flood.txt (a shared machine is too noisy to assert it)."""

import contextlib
import json
import re
import statistics
import threading
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from bench.management.commands.loadbench import VERSION, hand_shown, session_cookie
from chat.models import ChatMessage
from chat.phrases import PHRASES
from gameplay.models import Match
from tables.consumers import TOO_MANY_FRAMES
from tests.conftest import ARTIFACTS, free_port, site_env, start_daphne, stop, wait_for_port
from tests.faults.play import ORIGIN, Tab, play_timed
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.django_db(transaction=True)

FLOOD_FRAMES = 1000
FLOOD_SECONDS = 1.0
LINE = re.compile(r'"target": "#chat-log-players"')
REFUSED = re.compile(r'id=\\?"chat-notice\\?"[^>]*>[^<]+<')
"""A chat notice with words in it: a frame refused (a message said clears the notice)."""
BUDGETS = {
    "site": {},  # the socket's frame budget as the site has it: the socket is closed mid-flood
    "raised": {"SOCKET_FRAMES_BURST": "5000", "SOCKET_FRAMES_PER_SECOND": "5000"},  # the chat's alone
}


def flood_frames() -> list[str]:
    """Quick phrases and typed lines, no two alike (so none is refused as a repeat)."""
    keys = list(PHRASES)
    frames = [json.dumps({"type": "chat", "phrase": key, "text": ""}) for key in keys]
    frames += [
        json.dumps({"type": "chat", "phrase": "", "text": f"flood line {index}"})
        for index in range(FLOOD_FRAMES - len(keys))
    ]
    return frames


class CountingTab(Tab):
    """A seat's page that also counts the chat's lines it is sent."""

    def __init__(self, user, table_id: int) -> None:
        super().__init__(user, table_id)
        self.lines = 0

    def open(self, url: str, timeout: float = 20.0) -> None:
        super().open(url, timeout)
        socket, tab = self.socket, self

        class Counted:
            def recv(self, timeout=None):
                frame = socket.recv(timeout=timeout)
                tab.lines += len(LINE.findall(frame))
                return frame

            def __getattr__(self, name):
                return getattr(socket, name)

        self.socket = Counted()

    def drain(self, quiet: float = 1.0) -> None:
        while True:
            try:
                self.hand = hand_shown(self.hand, self.socket.recv(timeout=quiet))
            except TimeoutError:
                return


@pytest.fixture(params=list(BUDGETS))
def server(request) -> Iterator[tuple[str, str]]:
    """A Daphne process of the site, started as production starts it, on the test database."""
    port = free_port()
    env = site_env(CHAT_FREE_TEXT_MATCHES="0", **BUDGETS[request.param])
    with (ARTIFACTS / f"chat-flood-daphne-{request.param}.log").open("w") as log:
        process = start_daphne(port, env, log, start_new_session=True)
        try:
            wait_for_port(port, process)
            yield request.param, f"ws://127.0.0.1:{port}"
        finally:
            stop(process)


def flood(url: str, cookie: str, outcome: dict) -> None:
    """Send ``FLOOD_FRAMES`` chat frames within ``FLOOD_SECONDS`` from one page, reading what comes
    back until every frame is answered, the server closes the socket, or it falls quiet."""
    headers = {"Cookie": cookie, "Origin": ORIGIN}
    received: list[str] = []
    sent = 0
    with connect(url, additional_headers=headers, max_queue=None) as socket:
        started = time.perf_counter()
        try:
            for sent, frame in enumerate(flood_frames(), start=1):
                socket.send(frame)
                if sent % 50 == 0:  # paced over the second, as a script looping in a page would be
                    time.sleep(max(0.0, started + FLOOD_SECONDS * sent / FLOOD_FRAMES - time.perf_counter()))
            outcome["sent_ms"] = (time.perf_counter() - started) * 1000
            while True:
                received.append(socket.recv(timeout=10))
                if sum(1 for frame in received if 'id="chat-notice"' in frame.replace("\\", "")) >= sent:
                    break  # every frame answered
            outcome["code"] = None
        except ConnectionClosed as closed:
            outcome["code"] = closed.rcvd.code if closed.rcvd else None
            received += unread(socket)  # what the server sent before it closed the socket
        except TimeoutError:
            outcome["code"] = "quiet"
    outcome["sent"] = sent
    outcome["answered_ms"] = (time.perf_counter() - started) * 1000
    outcome["refused"] = sum(1 for frame in received if REFUSED.search(frame))
    outcome["lines"] = sum(len(LINE.findall(frame)) for frame in received)
    outcome["version"] = max((int(v) for frame in received for v in VERSION.findall(frame)), default=-1)


def unread(socket) -> list[str]:
    frames = []
    try:
        while True:
            frames.append(socket.recv(timeout=1))
    except (ConnectionClosed, TimeoutError):
        return frames


def figures(times: list[float]) -> str:
    return f"{len(times)} moves, p50 {statistics.median(times):.1f} ms, max {max(times):.1f} ms"


def test_a_chat_flood_is_refused_past_the_budget_and_the_table_plays_on(server):
    budget, url = server
    match, users = human_match("americana", 3, {"target": 501}, clock=45, prefix="flood")
    tabs = {seat: CountingTab(user, match.table_id) for seat, user in enumerate(users)}
    for tab in tabs.values():
        tab.open(url)
    play_timed(tabs, match.pk, 3, timeout=20)  # warm up
    before = play_timed(tabs, match.pk, 20, timeout=20)

    flooder = users[1]  # its second page floods; its first plays its turns
    outcome: dict = {}
    version_before = Match.objects.get(pk=match.pk).version
    flooding = threading.Thread(
        target=flood, args=(f"{url}/ws/tables/{match.table_id}/", session_cookie(flooder), outcome)
    )
    flooding.start()
    if budget == "site":
        # The frame budget is the person's, not the socket's: the flood spends it for their playing
        # page too, which would be closed for the flood with a move in it. They wait out the flood
        # and reload that page (its lines counted from the page before: the flood is over, none are new).
        flooding.join()
        with contextlib.suppress(ConnectionClosed):
            tabs[1].drain()
        lines = tabs[1].lines
        tabs[1].open(url)
        tabs[1].drain()
        tabs[1].lines = lines
    during: list[float] = []
    while len(during) < 10 or (flooding.is_alive() and len(during) < 200):
        during += play_timed(tabs, match.pk, 1, timeout=20)
    flooding.join()
    after = play_timed(tabs, match.pk, 5, timeout=20)
    for tab in tabs.values():
        tab.drain()

    stored = ChatMessage.objects.filter(table_id=match.table_id, author=flooder).count()
    burst = settings.CHAT_MESSAGES_PER_10_SECONDS
    # The chat's budget refills at burst / 10 a second: a flood answered over a few seconds earns
    # that much more.
    refilled = int(outcome["answered_ms"] / 1000 * burst / 10)
    report = (
        f"chat flood ({budget} frame budget): {outcome['sent']} of {FLOOD_FRAMES} frames sent in "
        f"{outcome.get('sent_ms', outcome['answered_ms']):.0f} ms, close code {outcome['code']}, "
        f"{outcome['refused']} refused with a notice, {stored} stored "
        f"(budget {burst} + {refilled} refilled), lines seen by the seats: "
        f"{[tab.lines for tab in tabs.values()]} (flooding page: {outcome['lines']}), "
        f"answered within {outcome['answered_ms']:.0f} ms"
        f"\nmoves, sent to every seat showing it, before: {figures(before)}"
        f"\n  during: {figures(during)}\n  after: {figures(after)}"
    )
    print("\n" + report)
    with (ARTIFACTS / "chat-flood.txt").open("a") as artifact:
        artifact.write(report + "\n\n")

    assert 1 <= stored <= burst + refilled
    assert all(tab.lines == stored for tab in tabs.values())  # each stored line broadcast once, no more
    if budget == "site":
        assert outcome["code"] == TOO_MANY_FRAMES  # the rest refused by closing the socket
        assert outcome["lines"] == stored
        # Those read within the socket's budget: said, or refused with a notice.
        assert stored + outcome["refused"] <= settings.SOCKET_FRAMES_BURST + outcome["answered_ms"] / 100
    else:
        assert outcome["code"] is None  # every frame answered, the socket left open
        assert outcome["sent"] == FLOOD_FRAMES
        assert outcome["refused"] == FLOOD_FRAMES - stored
        assert outcome["lines"] == stored
        assert outcome["version"] > version_before  # between the refusals, it was shown the moves made
