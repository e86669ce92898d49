"""A live page whose socket the server closes for good says why, in the page's language, and does not
reconnect (too many frames, a ban); one closed for a retry (the server out of touch with Redis) does."""

import re
import time

import pytest
from playwright.sync_api import Browser, Page, WebSocket, expect

from accounts.services import user_ban
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_play_browser import seated_pair
from tests.browser.test_table_craft import PHONE, live
from tests.conftest import ARTIFACTS
from tests.factories import make_user

CLOSED = {
    "en-GB": "This page sent too many messages too quickly",
    "ro-RO": "Pagina a trimis prea multe mesaje prea repede",
}
FLOOD = """() => {
    const socket = document.querySelector(".play, .lobby")._htmx.ws.connection.socket;
    for (let n = 0; n < 200; n++) socket.send('{"version": 99, "type": "draw"}');
}"""
"""A script sending 200 frames at once over the page's own socket (the table's, or the lobby's)."""
OPEN = """() => {
    const connection = document.querySelector(".play, .lobby")?._htmx?.ws?.connection;
    return connection?.socket?.readyState === WebSocket.OPEN;
}"""
"""Whether the page's socket is open (the server accepted it)."""


def eventually(page: Page, check, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"Within {timeout:g} s: {what}")
        page.wait_for_timeout(100)


TABLE_OR_LOBBY = re.compile(r"/ws/(tables/\d+|lobby)/")
"""The page's own socket, not the site-wide one (``/ws/me/``) every page opens beside it."""


def at_the_table(browser: Browser, base: str, locale: str):
    """Ana at her two-player table, on a phone in ``locale``: (page, her websockets as they open)."""
    table, (ana, _ion) = off_loop(seated_pair, "americana", {})
    page = browser.new_context(locale=locale, viewport=PHONE).new_page()
    sockets: list[WebSocket] = []
    page.on("websocket", lambda socket: sockets.append(socket) if TABLE_OR_LOBBY.search(socket.url) else None)
    log_in(page, base, ana.username)
    page.goto(f"{base}/tables/{table.pk}/")
    live(page)
    return page, ana, sockets


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", ["ro-RO", "en-GB"])
def test_a_page_flooding_its_socket_is_told_why_and_does_not_reconnect(
    browser: Browser, live_server_url: str, locale: str
):
    page, _ana, sockets = at_the_table(browser, live_server_url, locale)
    page.evaluate(FLOOD)
    # Said on the table's banner, where its connection is told of (not "reconnecting").
    expect(page.get_by_test_id("connection")).to_have_text(re.compile(CLOSED[locale]))
    expect(page.get_by_test_id("socket-closed")).to_have_count(0)
    page.screenshot(path=ARTIFACTS / f"socket-closed-{locale}.png")
    # A move now is answered with the same words, and nothing is sent.
    page.evaluate("() => document.getElementById('hand-area').requestSubmit()")
    expect(page.locator("#notice")).to_contain_text(CLOSED[locale])
    page.wait_for_timeout(3000)  # hx-ws's first retry would come within a second
    assert len(sockets) == 1
    page.context.close()


@pytest.mark.django_db(transaction=True)
def test_a_ban_stops_the_persons_lobby_at_once(browser: Browser, live_server_url: str):
    page, ana, _sockets = at_the_table(browser, live_server_url, "en-GB")
    lobby_sockets: list[WebSocket] = []
    page.on(
        "websocket",
        lambda socket: lobby_sockets.append(socket) if TABLE_OR_LOBBY.search(socket.url) else None,
    )
    page.goto(f"{live_server_url}/tables/")
    page.wait_for_function(OPEN)
    off_loop(ban, ana)
    expect(page.get_by_test_id("socket-closed")).to_contain_text("Your account has been deactivated")
    page.wait_for_timeout(3000)
    assert len(lobby_sockets) == 1
    page.context.close()


def ban(user) -> None:
    """Banned as a moderator bans, through the one ban service."""
    user_ban(user=user, by=make_user("moderator", is_staff=True, is_superuser=True))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("where", ["table", "lobby"])
def test_a_socket_closed_for_a_retry_is_opened_again(browser: Browser, live_server_url: str, where: str):
    table, (ana, _ion) = off_loop(seated_pair, "americana", {})
    page = browser.new_context(locale="en-GB", viewport=PHONE).new_page()
    routed = []

    def through(socket) -> None:
        routed.append(socket)
        socket.connect_to_server()

    page.route_web_socket(re.compile(r"/ws/(tables/\d+|lobby)/"), through)
    log_in(page, live_server_url, ana.username)
    if where == "table":
        page.goto(f"{live_server_url}/tables/{table.pk}/")
        live(page)
    else:
        page.goto(f"{live_server_url}/tables/")
        page.wait_for_function(OPEN)
    routed[-1].close(code=4013)  # what a server out of touch with its channel layer sends
    eventually(page, lambda: len(routed) == 2, "the page opens its socket again")
    page.wait_for_function(OPEN)
    page.context.close()
