"""A person at a table over a real websocket, and what the fault tests check of a match."""

import json
import time
from collections.abc import Callable
from contextlib import ExitStack

from django.db import transaction
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

from bench.management.commands.loadbench import VERSION, hand_shown, session_cookie
from gameplay import services
from gameplay.engine import get_game
from gameplay.engine.core import act as engine_act
from gameplay.models import Match

ORIGIN = "http://127.0.0.1"


def wait_for[T](check: Callable[[], T | None], timeout: float, what: str, poll: float = 0.1) -> T:
    """The first truthy answer of ``check`` within ``timeout`` seconds; fails the test naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"Within {timeout:g} s: {what}")
        time.sleep(poll)


def connect_when_served(opened: ExitStack, address: str, cookie: str, timeout: float) -> ClientConnection:
    """A websocket to ``address`` as the person of ``cookie`` (closed with ``opened``), tried again
    until ``timeout`` while the server refuses (it is starting, or restarting)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return opened.enter_context(
                connect(address, additional_headers={"Cookie": cookie, "Origin": ORIGIN}, open_timeout=5)
            )
        except (OSError, TimeoutError, InvalidHandshake):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


class Tab:
    """A seat's page: one websocket at a time, to the server it is pointed at. Like the page, it opens
    the socket again when the server hangs up, and it keeps the last hand (and version) it was shown.
    Like the person, it makes a move again when the page comes back still waiting for it (a move sent
    into a socket the server had just dropped is lost with it)."""

    def __init__(self, user, table_id: int) -> None:
        self.cookie = session_cookie(user)
        self.table_id = table_id
        self.socket: ClientConnection | None = None
        self.opened = ExitStack()
        self.url = ""
        self.version = -1
        self.hand = ""
        self.pending: str | None = None
        """The last move sent, until the page shows the table moved on."""
        self.pending_version = -1

    def open(self, url: str, timeout: float = 20.0) -> None:
        """Connect to the server at ``url``, trying again until ``timeout`` while it refuses."""
        self.close()
        self.url = url
        self.version, self.hand = -1, ""  # a new page load shows everything anew
        self.socket = connect_when_served(
            self.opened, f"{url}/ws/tables/{self.table_id}/", self.cookie, timeout
        )

    def close(self) -> None:
        self.opened.close()
        self.socket = None

    def shows(self, version: int, timeout: float = 20.0) -> str:
        """Read frames until the hand shows ``version`` or later; the hand's markup."""
        deadline = time.monotonic() + timeout
        resend = None
        while self.version < version:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"Table {self.table_id}: the page never showed version {version}.")
            try:
                frame = self.socket.recv(timeout=left)
            except TimeoutError:
                continue
            except ConnectionClosed:
                self.open(self.url, timeout=max(left, 1.0))
                resend = self.pending
                continue
            shown = hand_shown(self.hand, frame)
            if shown != self.hand:
                self.hand = shown
                self.version = int(VERSION.search(self.hand).group(1))
            if resend and self.version == self.pending_version:
                self.socket.send(resend)
            resend = None
        if self.version > self.pending_version:
            self.pending = None
        return self.hand

    def send(self, version: int, action: dict) -> None:
        """Send a move as the page's form does."""
        self.pending, self.pending_version = json.dumps({"version": version, **action}), version
        try:
            self.socket.send(self.pending)
        except ConnectionClosed:
            self.open(self.url)
            self.socket.send(self.pending)


def turn_of(match_id: int, seats) -> tuple[int, int, dict] | None:
    """(seat, version, its first legal move) when one of ``seats`` is to act in the running match."""
    match = Match.objects.get(pk=match_id)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if match.status != Match.Status.PLAYING or game.awaiting_deal(state) or game.to_act(state) not in seats:
        return None
    return game.to_act(state), match.version, game.action_to_json(game.legal_actions(state)[0])


def play_turn(tabs: dict[int, Tab], match_id: int, timeout: float = 30.0) -> tuple[int, int, dict]:
    """Wait for the turn of a seat with a page open, make its first legal move through that page, and
    wait until every page shows it; (the seat, the version the move was made at, the move)."""
    seat, version, action = wait_for(lambda: turn_of(match_id, tabs), timeout, "a person gets the turn")
    tabs[seat].shows(version, timeout)
    tabs[seat].send(version, action)
    tabs[seat].shows(version + 1, timeout)  # the mover's page first: it makes the move again if it was lost
    for tab in tabs.values():
        tab.shows(version + 1, timeout)
    return seat, version, action


def play_timed(tabs: dict[int, Tab], match_id: int, moves: int, timeout: float = 10.0) -> list[float]:
    """Make ``moves`` moves at the table through its pages (dealing the next round here when one
    ends); each move's milliseconds from being sent to every page showing it."""
    times = []
    while len(times) < moves:
        turn = turn_of(match_id, tabs)
        if turn is None:  # a round over: deal the next one
            match = Match.objects.get(pk=match_id)
            assert get_game(match.game).awaiting_deal(get_game(match.game).state_from_json(match.state))
            services.round_deal_next(match_id=match_id, expected_version=match.version)
            for tab in tabs.values():
                tab.shows(match.version + 1, timeout=timeout)
            continue
        seat, version, action = turn
        started = time.perf_counter()
        tabs[seat].send(version, action)
        for tab in tabs.values():
            tab.shows(version + 1, timeout=timeout)
        times.append((time.perf_counter() - started) * 1000)
    return times


def check_record(match_id: int) -> int:
    """The match's moves are numbered 1..n with none missing or repeated, and replaying them through
    the engine from the seed leads to the stored state (the next round dealt, when it has been).
    Reads under the match's row lock, so no move lands in between. Returns n."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        moves = list(match.moves.order_by("seq").values_list("seq", "seat", "action"))
    assert [seq for seq, _seat, _action in moves] == list(range(1, len(moves) + 1))
    game = get_game(match.game)
    state = game.new_match(game.options_from_json(match.options), match.seed)
    for _seq, seat, action in moves:
        if game.awaiting_deal(state):
            game.next_round(state)
        engine_act(game, state, seat, game.action_from_json(action))
    if game.state_to_json(state) != match.state and game.awaiting_deal(state):
        game.next_round(state)
    assert game.state_to_json(state) == match.state
    return len(moves)
