"""A flaky phone network at the table, in a real Chromium: the browser goes offline and its
websocket is really lost. The page says so (and says when it is back), reconnects the moment the
network returns, catches up with what happened meanwhile, and refuses aloud a move made offline;
a move a dead socket swallows is said to be in doubt, and the socket replaced."""

import re

import pytest
from playwright.sync_api import Browser, WebSocketRoute, expect

from gameplay import services
from gameplay.models import Match, Move
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_play_browser import rest_of_deck, rig, seated_pair
from tests.browser.test_table_craft import AMERICANA_RANKS, PHONE, live

HANDS = [["9H", "5S", "KD", "4C", "JC"], ["3H", "6S", "8D", "10C", "QC"]]
TOP = "9S"
WORDS = {
    "en-GB": {
        "offline": "No connection. The table will catch up as soon as you are back online.",
        "unsent": "No connection: your move was not sent. Try again once the table is back.",
        "back": "Connected again.",
        "stood_in": "The bot for ",
        "unanswered": "No answer from the table: your move may not have arrived.",
    },
    "ro-RO": {
        "offline": "Fără conexiune. Masa se actualizează imediat ce revii online.",
        "unsent": "Fără conexiune: mutarea nu a fost trimisă. Încearcă din nou după ce revine masa.",
        "back": "Conexiunea a revenit.",
        "stood_in": "Botul din locul lui ",
        "unanswered": "Masa nu a răspuns: se poate ca mutarea ta să nu fi ajuns.",
    },
}
CONTRAST = """button => {
    const luminance = (color) => {
        const [r, g, b] = color.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => {
            v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const style = getComputedStyle(button);
    const [a, b] = [luminance(style.color), luminance(style.backgroundColor)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
}"""


def ana_at_the_table(browser: Browser, base: str, locale: str):
    """Ana, to play first, at a two-player Americana table on a phone whose network the test
    controls: (match, ana, page, her websockets as routed, {"up": whether the network carries them,
    "swallow": whether what she sends is lost on the way while her socket stays open})."""
    table, (ana, _ion) = off_loop(seated_pair, "americana", {})
    match = Match.objects.get(table=table)
    held = [*HANDS[0], *HANDS[1], TOP]
    off_loop(
        rig, match, {"dealer": 1, "hands": HANDS, "pile": [TOP], "stock": rest_of_deck(AMERICANA_RANKS, held)}
    )
    page = browser.new_context(locale=locale, viewport=PHONE).new_page()
    sockets: list[WebSocketRoute] = []
    network = {"up": True, "swallow": False}

    def through_the_network(socket: WebSocketRoute) -> None:
        sockets.append(socket)
        if not network["up"]:
            socket.close(code=4013)
            return
        server = socket.connect_to_server()
        socket.on_message(lambda message: None if network["swallow"] else server.send(message))

    page.route_web_socket(re.compile(r"/ws/tables/"), through_the_network)
    log_in(page, base, ana.username)
    page.goto(f"{base}/tables/{table.pk}/")
    live(page)
    expect(page.locator(".me-line.is-to-act")).to_be_visible()
    return match, ana, page, sockets, network


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", ["ro-RO", "en-GB"])
def test_a_lost_connection_is_shown_caught_up_at_once_and_an_offline_move_refused_aloud(
    browser: Browser, live_server_url: str, locale: str
):
    words = WORDS[locale]
    match, ana, page, sockets, network = ana_at_the_table(browser, live_server_url, locale)
    context = page.context
    banner = page.get_by_test_id("connection")
    expect(banner).to_be_empty()

    # The network goes; from now on the page's own backoff would wait ten minutes between tries.
    page.evaluate(
        """() => {
            const config = document.querySelector(".play")._htmx.ws.connection.config;
            config.reconnectDelay = config.reconnectMaxDelay = 600000;
        }"""
    )
    network["up"] = False
    context.set_offline(True)
    sockets[-1].close(code=1006)
    expect(banner).to_have_text(words["offline"])
    expect(banner).to_have_attribute("role", "alert")

    # A card played offline: refused at once and aloud, the card back in the hand, nothing sent.
    page.locator(".hand-card:not(.is-dim)").first.click()
    page.locator(".play-button").click()
    expect(page.locator("#notice")).to_have_text(words["unsent"])
    expect(page.locator("#hand-area input[name=card]:checked")).to_have_count(0)
    expect(page.locator("#hand-area .hand-card.is-held")).to_have_count(0)

    # Meanwhile Ana is gone on her turn: a bot stands in for her and plays.
    assert off_loop(services.seat_stand_in, match_id=match.pk, seat=0, expected_version=0)

    # The network is back: the page reconnects at once and catches up.
    network["up"] = True
    context.set_offline(False)
    expect(page.get_by_test_id("back")).to_be_visible()
    expect(page.locator("#log")).to_contain_text(words["stood_in"] + ana.username)
    expect(banner).to_have_text(words["back"])
    expect(banner).to_be_empty()
    assert not Move.objects.filter(match=match, actor=Move.Actor.PLAYER).exists()

    # "I'm back" stands out on the felt (WCAG AA at least).
    assert page.get_by_test_id("back").evaluate(CONTRAST) >= 4.5
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_move_swallowed_by_a_dead_socket_is_said_to_be_in_doubt_and_the_socket_replaced(
    browser: Browser, live_server_url: str
):
    """The phone says it is online and the socket open, but nothing gets through."""
    match, _ana, page, sockets, network = ana_at_the_table(browser, live_server_url, "en-GB")
    network["swallow"] = True
    page.locator(".hand-card:not(.is-dim)").first.click()
    page.locator(".play-button").click()
    expect(page.locator("#notice")).to_contain_text(WORDS["en-GB"]["unanswered"], timeout=15_000)
    expect(page.locator("#hand-area input[name=card]:checked")).to_have_count(0)
    network["swallow"] = False
    # A fresh socket, and the table as it stands: still Ana's turn, nothing played.
    expect(page.get_by_test_id("connection")).to_have_text(WORDS["en-GB"]["back"])
    assert len(sockets) == 2
    expect(page.locator("input[name=version]")).to_have_value("0")
    assert not Move.objects.filter(match=match).exists()
    # And the next move goes through.
    page.locator(".hand-card:not(.is-dim)").first.click()
    page.locator(".play-button").click()
    expect(page.locator("input[name=version]")).to_have_value("1")
    page.context.close()
