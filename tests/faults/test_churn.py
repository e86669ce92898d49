"""Tables come and go, and a server process keeps nothing of them: hundreds of tables opened, played
at a little and closed, with their players' and a watcher's pages over real websockets to one real
Daphne (PostgreSQL and Redis), and what that process holds per table, match, connection and person
(``config.holdings``, as its ``/metrics`` reports it) back where it started."""

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest
from django.conf import settings
from django.db import connection
from websockets.sync.client import connect

from bench.management.commands.loadbench import session_cookie
from bench.management.commands.soak import held_at
from gameplay import services
from tests.factories import make_user
from tests.faults.play import ORIGIN, Tab, play_timed
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.faults

TABLES = 200
AT_ONCE = 10
CHECK_EVERY = 50
MOVES = 3
"""Moves made at each table through its players' pages before it is closed."""


def one_table(server: str, number: int, watcher_cookie: str, seen: list[dict[str, int]]) -> None:
    """A match of two new people, each with their table page and site-wide page open, and a staff
    member watching: a few moves made through the pages, then the table closed and every page too.
    Every ``CHECK_EVERY``th table notes in ``seen`` what the server holds while its pages are open."""
    match, users = human_match(prefix=f"churn{number}-")
    with ExitStack() as pages:
        tabs = {seat: Tab(user, match.table_id) for seat, user in enumerate(users)}
        for tab in tabs.values():
            pages.callback(tab.close)
            tab.open(server)
        for user in users:
            headers = {"Cookie": session_cookie(user), "Origin": ORIGIN}
            pages.enter_context(connect(f"{server}/ws/me/", additional_headers=headers))
        watching = pages.enter_context(
            connect(
                f"{server}/ws/tables/{match.table_id}/",
                additional_headers={"Cookie": watcher_cookie, "Origin": ORIGIN},
            )
        )
        watching.recv(timeout=10)  # the table as it stands
        play_timed(tabs, match.pk, MOVES)
        if number % CHECK_EVERY == 0:
            seen.append(held_at(server))
        services.table_close(table_id=match.table_id, reason="Stopped by a moderator.")


def quiet(server: str) -> dict[str, int]:
    """What the Daphne holds once every page has closed: their sockets' ends reach it a moment after
    the sockets close here."""
    deadline = time.monotonic() + 30
    while (now := held_at(server))["tables pages"] + now["people pages"] and time.monotonic() < deadline:
        time.sleep(0.2)
    return now


def tables_at_once(server: str, numbers: range, watcher_cookie: str, seen: list[dict[str, int]]) -> None:
    """The tables ``numbers``, ``AT_ONCE`` of them open at a time (each on a thread of its own, with its
    own database connection, closed after)."""

    def table(number: int) -> None:
        try:
            one_table(server, number, watcher_cookie, seen)
        finally:
            connection.close()

    with ThreadPoolExecutor(AT_ONCE) as pool:
        list(pool.map(table, numbers))


def test_hundreds_of_tables_opened_played_and_closed_leave_nothing_held_in_the_process(stack):
    stack.env.update(SECRET_KEY=settings.SECRET_KEY)  # the pages' sessions are signed with this key
    server = stack.daphne()
    watcher_cookie = session_cookie(make_user("churn-watcher", is_staff=True))
    seen: list[dict[str, int]] = []
    tables_at_once(server, range(AT_ONCE), watcher_cookie, seen)  # the process's own places, made once
    before = quiet(server)
    tables_at_once(server, range(AT_ONCE, TABLES), watcher_cookie, seen)
    after = quiet(server)
    assert after == before
    # While a table's pages were open, the process held its read and its pieces of markup.
    assert len(seen) == TABLES // CHECK_EVERY
    assert all(count["shared table reads"] and count["markup memo owners"] for count in seen)
