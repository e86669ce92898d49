"""The table as a player handles it, in a real Chromium: cards dragged by mouse and by finger,
a refused card sliding back, a turn played by keyboard alone, the whole table on a phone's
screen, and an accessibility scan (axe-core) with no serious violations."""

import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match
from tables import services as table_services
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_play_browser import play_until_over, rest_of_deck, rig, seated_pair
from tests.conftest import ARTIFACTS, ROOT
from tests.factories import make_user

PHONE = {"width": 375, "height": 667}
PHONE_LANDSCAPE = {"width": 667, "height": 375}
DESKTOP = {"width": 1280, "height": 800}
AXE = ROOT / "static" / "vendor" / "axe" / "axe.min.js"
AMERICANA_RANKS = "2 3 4 5 6 7 8 9 10 J Q K A"
LOCALES = ("en-GB", "ro-RO")


def players_at(
    browser: Browser,
    base: str,
    game: str,
    options: dict,
    locales=LOCALES,
    touch=False,
    motion="no-preference",
):
    """Ana and Ion at a two-player table, each in a browser of their own (on a touch phone if
    ``touch``), the table open; each page gathers its script errors in ``page.script_errors``."""
    table, users = off_loop(seated_pair, game, options)
    pages = []
    for user, locale in zip(users, locales, strict=True):
        context = browser.new_context(
            locale=locale, viewport=PHONE, has_touch=touch, is_mobile=touch, reduced_motion=motion
        )
        page = context.new_page()
        page.script_errors = errors = []
        page.on("pageerror", lambda error, errors=errors: errors.append(error))
        log_in(page, base, user.username)
        page.goto(f"{base}/tables/{table.pk}/")
        pages.append(page)
    return Match.objects.get(table=table), pages


def americana_pair(browser: Browser, base: str, hands: list[list[str]], top: str, **kwargs):
    """Ana (to play first) and Ion at a two-player Americana table with a known deal."""
    match, pages = players_at(browser, base, "americana", {}, **kwargs)
    held = [*hands[0], *hands[1], top]
    deal = {"dealer": 1, "hands": hands, "pile": [top], "stock": rest_of_deck(AMERICANA_RANKS, held)}
    off_loop(rig, match, deal)
    for page in pages:
        page.reload()
        live(page)
    expect(pages[0].locator(".me-line.is-to-act")).to_be_visible()
    return match, pages


def live(page: Page) -> None:
    """Wait for the websocket's first update: until then the page's fragments may still be replaced."""
    expect(page.locator("[data-testid=play][data-live]")).to_have_count(1, timeout=15_000)


def card(page: Page, code: str) -> Locator:
    return page.locator(".hand-card", has=page.locator(f"input[value='{code}']"))


def hand_order(page: Page) -> list[str]:
    return page.locator("#hand-area input[name=card]").evaluate_all("inputs => inputs.map(i => i.value)")


def middle(locator: Locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def left_strip(locator: Locator) -> tuple[float, float]:
    """A point on the part of a hand card that shows when cards overlap: its index corner."""
    box = locator.bounding_box()
    return box["x"] + 6, box["y"] + box["height"] / 2


def mouse_drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=6)
    page.mouse.move(*end, steps=6)
    page.mouse.up()


class Finger:
    """A finger on the screen: real touch events through the DevTools protocol, which Chromium
    turns into the pointer events (and, for a tap, the click) the page listens to."""

    FRAME = 0.016

    def __init__(self, page: Page):
        self.cdp = page.context.new_cdp_session(page)
        self.clock = time.time()

    def touch(self, kind: str, point: tuple[float, float] | None = None) -> None:
        """One touch event, stamped a frame after the last, so gestures have a believable speed."""
        self.clock = max(self.clock + self.FRAME, time.time())
        points = [{"x": point[0], "y": point[1]}] if point else []
        self.cdp.send(
            "Input.dispatchTouchEvent", {"type": kind, "touchPoints": points, "timestamp": self.clock}
        )

    def drag(self, start: tuple[float, float], end: tuple[float, float]) -> None:
        self.touch("touchStart", start)
        for step in range(1, 11):
            x, y = start[0] + (end[0] - start[0]) * step / 10, start[1] + (end[1] - start[1]) * step / 10
            self.touch("touchMove", (x, y))
        # The finger rests before it lifts, as on a real drop: a fling would swallow the next tap.
        for _still in range(8):
            self.touch("touchMove", end)
        self.touch("touchEnd")

    def tap(self, point: tuple[float, float]) -> None:
        self.touch("touchStart", point)
        self.touch("touchEnd")


def settled(page: Page, code: str) -> None:
    """Wait until the card is back in its slot of the hand, not held or moving."""
    page.wait_for_function(
        """code => {
            const label = document.querySelector(`#hand-area input[value="${code}"]`)?.closest(".hand-card");
            return label && !label.matches(".is-held, .is-dragging") && label.style.transform === ""
                && getComputedStyle(label).transform === "none";
        }""",
        arg=code,
    )


@pytest.mark.django_db(transaction=True)
def test_drag_to_reorder_and_to_play_with_the_mouse(browser: Browser, live_server_url: str):
    hands = [["9H", "KC", "3D", "2H", "5H"], ["9S", "10C", "QC", "5C", "2C"]]
    match, (ana, ion) = americana_pair(browser, live_server_url, hands, "6H")
    assert hand_order(ana) == ["2H", "3D", "5H", "9H", "KC"]

    # Sideways in the hand: the king goes first, and stays first after a reload.
    mouse_drag(ana, middle(card(ana, "KC")), left_strip(card(ana, "2H")))
    settled(ana, "KC")
    assert hand_order(ana) == ["KC", "2H", "3D", "5H", "9H"]
    ana.reload()
    live(ana)
    assert hand_order(ana) == ["KC", "2H", "3D", "5H", "9H"]

    # To the middle of the table: the two is played, for both players, and hits Ion's seat.
    mouse_drag(ana, middle(card(ana, "2H")), middle(ana.get_by_test_id("center")))
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "2H")
    expect(ion.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "2H")
    assert hand_order(ana) == ["KC", "3D", "5H", "9H"]
    expect(ana.get_by_test_id("opponent-1").get_by_test_id("hit")).to_have_text("+2 cards")
    expect(ion.locator(".me-line").get_by_test_id("hit")).to_have_text("+2 cărți")
    ana.screenshot(path=ARTIFACTS / "craft-drag-played-en.png")
    ion.screenshot(path=ARTIFACTS / "craft-hit-ro.png")
    match.refresh_from_db()
    assert match.moves.filter(actor="player").count() == 1
    assert ana.script_errors == [] and ion.script_errors == []


@pytest.mark.django_db(transaction=True)
def test_an_illegal_drag_slides_back_and_says_why(browser: Browser, live_server_url: str):
    hands = [["9H", "KC", "3D", "4D", "5H"], ["9S", "10C", "QC", "5C", "2C"]]
    match, (ana, _ion) = americana_pair(browser, live_server_url, hands, "6H", locales=("ro-RO", "en-GB"))
    king = card(ana, "KC")
    slot = king.bounding_box()
    expect(king).to_have_class(re.compile(r"\bis-dim\b"))

    mouse_drag(ana, middle(king), middle(ana.get_by_test_id("center")))
    expect(ana.locator("#notice")).to_contain_text("Cartea aceasta nu merge peste șase de inimă roșie.")
    settled(ana, "KC")
    assert king.bounding_box() == pytest.approx(slot, abs=1)
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "6H")
    assert hand_order(ana) == ["3D", "4D", "5H", "9H", "KC"]
    match.refresh_from_db()
    assert match.moves.count() == 0


@pytest.mark.django_db(transaction=True)
def test_touch_reorders_plays_and_names_the_seven_before_it_lands(browser: Browser, live_server_url: str):
    hands = [["7S", "9H", "3D", "4D", "5H"], ["9S", "10C", "QC", "5C", "2C"]]
    match, (ana, _ion) = americana_pair(browser, live_server_url, hands, "6H", touch=True)
    finger = Finger(ana)
    finger.drag(middle(card(ana, "9H")), left_strip(card(ana, "3D")))
    settled(ana, "9H")
    assert hand_order(ana) == ["9H", "3D", "4D", "5H", "7S"]

    # A seven dropped on the table asks for its suit first; it lands only once one is named.
    finger.drag(middle(card(ana, "7S")), middle(ana.get_by_test_id("center")))
    expect(ana.locator(".suit-picker")).to_be_visible()
    expect(card(ana, "7S")).to_have_class(re.compile(r"\bis-held\b"))
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "6H")
    ana.screenshot(path=ARTIFACTS / "craft-touch-seven-prompt-en.png")
    finger.tap(middle(ana.locator(".suit-picker button[value='C']")))
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "7S")
    expect(ana.get_by_test_id("suit-in-force")).to_contain_text("clubs")
    assert hand_order(ana) == ["9H", "3D", "4D", "5H"]
    assert Match.objects.get(pk=match.pk).moves.get().action == {"type": "play", "card": "7S", "suit": "C"}


def focused_card(page: Page) -> str | None:
    return page.evaluate(
        "document.activeElement?.matches('input[name=card]') ? document.activeElement.value : null"
    )


@pytest.mark.django_db(transaction=True)
def test_a_whole_turn_by_keyboard(browser: Browser, live_server_url: str):
    hands = [["9H", "7S", "KC", "3D", "4D"], ["9S", "10C", "QC", "5C", "2C"]]
    match, (ana, ion) = americana_pair(browser, live_server_url, hands, "6H")
    expect(ana).to_have_title(re.compile(r"^Your turn · "))

    # Tab reaches the hand; the arrows walk it without picking; the focus is visible.
    for _press in range(40):
        ana.keyboard.press("Tab")
        if focused_card(ana):
            break
    assert focused_card(ana) == "3D"
    ana.keyboard.press("ArrowRight")
    ana.keyboard.press("ArrowRight")
    ana.keyboard.press("ArrowRight")
    assert focused_card(ana) == "9H"
    assert not card(ana, "9H").locator("input").is_checked()
    outline = card(ana, "9H").locator(".card").evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none"

    # Enter picks, Escape puts it back, Enter picks again and Enter plays.
    ana.keyboard.press("Enter")
    expect(card(ana, "9H").locator("input")).to_be_checked()
    ana.keyboard.press("Escape")
    expect(card(ana, "9H").locator("input")).not_to_be_checked()
    ana.keyboard.press("Enter")
    ana.keyboard.press("Enter")
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "9H")
    expect(ana).not_to_have_title(re.compile("Your turn"))
    assert focused_card(ana) is not None  # the focus stays in the hand after the update

    # Ion answers; Ana hears it in the live region.
    card(ion, "9S").click()
    ion.locator(".play-button").click()
    expect(ana.get_by_test_id("announcer")).to_contain_text("ion played the 9 of spades.")

    # A seven: Enter opens the suit prompt, Tab walks the suits, Enter names one.
    ana.locator("#hand-area input[value='7S']").focus()
    ana.keyboard.press("Enter")
    ana.keyboard.press("Enter")
    expect(ana.locator(".suit-picker")).to_be_visible()
    ana.keyboard.press("Tab")
    ana.keyboard.press("Enter")
    expect(ion.get_by_test_id("suit-in-force")).to_contain_text("inimă roșie")
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "7S")

    # Ion draws; Ana draws with D; S opens the scores and Escape closes them.
    ion.get_by_role("button", name=re.compile("Trage")).click()
    expect(ana.locator(".me-line.is-to-act")).to_be_visible()
    ana.keyboard.press("d")
    expect(ana.get_by_test_id("hand").locator(".hand-card")).to_have_count(4)
    ana.keyboard.press("s")
    expect(ana.get_by_test_id("scores")).to_have_attribute("open", "")
    ana.keyboard.press("Escape")
    expect(ana.get_by_test_id("scores")).not_to_have_attribute("open", "")
    moves = list(match.moves.order_by("seq").values_list("action", flat=True))
    assert moves[0] == {"type": "play", "card": "9H"}
    assert moves[2] == {"type": "play", "card": "7S", "suit": "H"}
    assert moves[4] == {"type": "draw"}
    assert ana.script_errors == [] and ion.script_errors == []


def tab_to(page: Page, is_there: str) -> None:
    """Press Tab until the focused element satisfies the script ``is_there`` (given ``el``)."""
    for _press in range(60):
        if page.evaluate(f"(el => Boolean({is_there}))(document.activeElement)"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {is_there}")


def keyboard_turn(page: Page) -> None:
    """One turn with the keys alone: walk to the first playable card and play it (a seven names
    the first suit), or press the key of the first action the rules allow."""
    playable = page.locator("#hand-area .hand-card:not(.is-dim) input[name=card]")
    if playable.count() and page.locator(".play-button").count():
        target = playable.first.get_attribute("value")
        tab_to(page, "el.matches('#hand-area input[name=card]')")
        order = hand_order(page)
        steps = order.index(target) - order.index(focused_card(page))
        for _step in range(abs(steps)):
            page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        if page.locator(".suit-picker:visible").count():
            page.keyboard.press("Enter")
        return
    button = page.get_by_test_id("actions").locator("button[name=type]").first
    key = button.get_attribute("data-key")
    if key:
        page.keyboard.press(key.upper())
    else:
        value = button.get_attribute("value")
        tab_to(page, f"el.matches('#hand-area button[value={value}]')")
        page.keyboard.press("Enter")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("game", "options", "near_the_end"),
    [
        ("americana", {"target": 101}, {"totals": [88, 95]}),
        ("classic", {"match": "points8"}, {"totals": [7, 7]}),
    ],
)
def test_a_whole_match_by_keyboard_alone_in_both_languages(
    browser: Browser, live_server_url: str, game: str, options: dict, near_the_end: dict
):
    match, pages = players_at(browser, live_server_url, game, options)
    play_to_the_end(match, pages, near_the_end, dict.fromkeys(pages, keyboard_turn))
    pages[0].screenshot(path=ARTIFACTS / f"craft-{game}-keyboard-match-over-en.png")
    pages[1].screenshot(path=ARTIFACTS / f"craft-{game}-keyboard-match-over-ro.png")


def play_to_the_end(match: Match, pages: list[Page], near_the_end: dict, turns: dict) -> None:
    """Put the match near its end, then let each page's ``turns[page]`` play its turns until the
    match is over; nothing else touches the pages."""
    off_loop(rig, match, None, **near_the_end)  # the deal being played decides the match
    for page in pages:
        page.reload()
        live(page)
    play_until_over(pages, turns)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.moves.filter(actor="player").count() > 2
    assert all(page.script_errors == [] for page in pages)


def touch_turn(finger: Finger) -> Callable[[Page], None]:
    """One turn by finger alone: drag the first playable card to the table (a seven names the
    first suit by a tap), or tap the first action the rules allow."""

    def turn(page: Page) -> None:
        playable = page.locator("#hand-area .hand-card:not(.is-dim) input[name=card]")
        if playable.count() and page.locator(".play-button").count():
            label = card(page, playable.first.get_attribute("value"))
            finger.drag(middle(label), middle(page.get_by_test_id("center")))
            if page.locator(".suit-picker:visible").count():
                finger.tap(middle(page.locator(".suit-picker button").first))
        else:
            finger.tap(middle(page.get_by_test_id("actions").locator("button[name=type]").first))

    return turn


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("game", "options", "near_the_end"),
    [
        ("americana", {"target": 101}, {"totals": [88, 95]}),
        ("classic", {"match": "points8"}, {"totals": [7, 7]}),
    ],
)
def test_a_whole_match_by_touch_alone_in_both_languages(
    browser: Browser, live_server_url: str, game: str, options: dict, near_the_end: dict
):
    match, pages = players_at(browser, live_server_url, game, options, touch=True)
    play_to_the_end(match, pages, near_the_end, {page: touch_turn(Finger(page)) for page in pages})
    pages[0].screenshot(path=ARTIFACTS / f"craft-{game}-touch-match-over-en.png")
    pages[1].screenshot(path=ARTIFACTS / f"craft-{game}-touch-match-over-ro.png")


COUNT_MOTION = """
    // After each update's listeners have all run, how many animations the update started.
    window.motions = [];
    document.addEventListener("table:updated", () => queueMicrotask(() => window.motions.push(
        document.getAnimations().filter((animation) => !(animation instanceof CSSAnimation)).length)));
"""


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("motion", "moves"), [("no-preference", True), ("reduce", False)])
def test_a_played_card_travels_unless_the_player_prefers_reduced_motion(
    browser: Browser, live_server_url: str, motion: str, moves: bool
):
    hands = [["9H", "KC", "3D", "4D", "5H"], ["9S", "10C", "QC", "5C", "2C"]]
    _match, (ana, ion) = americana_pair(browser, live_server_url, hands, "6H", motion=motion)
    ion.add_init_script(COUNT_MOTION)
    ion.reload()
    live(ion)
    card(ana, "9H").click()
    ana.locator(".play-button").click()
    expect(ion.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "9H")
    assert (max(ion.evaluate("window.motions")) > 0) is moves


RECORD_NOTIFICATIONS = """
    // This browser runs without a screen to show notifications on: record them instead, and let
    // the test say when the tab is in the background.
    window.notified = [];
    window.Notification = class {
        static permission = "granted";
        static requestPermission() { return Promise.resolve("granted"); }
        constructor(title) { window.notified.push(title); }
        addEventListener() {}
        close() {}
    };
    Object.defineProperty(document, "hidden", { configurable: true, get: () => window.tabHidden === true });
"""


@pytest.mark.django_db(transaction=True)
def test_your_turn_shows_in_the_title_and_as_a_notification_in_the_background(
    browser: Browser, live_server_url: str
):
    hands = [["9H", "KC", "3D", "4D", "5H"], ["9S", "10C", "QC", "5C", "2C"]]
    _match, (ana, ion) = americana_pair(browser, live_server_url, hands, "6H")
    ana.add_init_script(RECORD_NOTIFICATIONS)
    ana.reload()
    live(ana)
    ana.get_by_test_id("settings").locator("summary").click()
    ana.locator("[data-setting='notify']").check()
    ana.keyboard.press("Escape")
    expect(ana).to_have_title(re.compile(r"^Your turn · "))

    card(ana, "9H").click()
    ana.locator(".play-button").click()
    expect(ana).not_to_have_title(re.compile("Your turn"))
    ana.evaluate("window.tabHidden = true")
    card(ion, "9S").click()
    ion.locator(".play-button").click()
    expect(ana).to_have_title(re.compile(r"^Your turn · "))
    assert ana.evaluate("window.notified") == ["Your turn"]
    assert ana.script_errors == []


def table_with_bots(game: str, players: int):
    """Ana and bots around a private table, the match started; Ana plays first."""
    ana = make_user("ana")
    table = gameplay_services.table_create(
        host=ana, game=game, options={"players": players}, turn_clock=0, is_private=True
    )
    for position in range(1, players):
        table_services.bot_add(table_id=table.pk, by=ana, position=position, level="easy")
    match = Match.objects.get(table=table)
    engine = get_game(game)
    dealt = engine.state_to_json(engine.new_match(engine.options_from_json(match.options), match.seed))
    if game == "americana":
        # A long hand: the phone must fit it too.
        hands = [dealt["hands"][0] + dealt["stock"][:7], *dealt["hands"][1:]]
        deal = {"dealer": players - 1, "hands": hands, "pile": dealt["pile"], "stock": dealt["stock"][7:]}
    else:
        deal = {"leader": 0, "hands": dealt["hands"], "stock": dealt["stock"]}
    rig(match, deal)
    return table, ana


def assert_fits(page: Page) -> None:
    """Nothing scrolls, and every control of the table is inside the screen."""
    size = page.viewport_size
    scroll = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert scroll[0] <= size["width"] and scroll[1] <= size["height"], scroll
    controls = page.locator(
        "#hand-area button:visible, #hand-area .hand-card, .play summary,"
        " .site-header button:visible, .site-header a:visible"
    )
    assert controls.count() > 5
    for index in range(controls.count()):
        box = controls.nth(index).bounding_box()
        assert box is not None
        inside = box["x"] >= 0 and box["y"] >= 0
        inside = inside and box["x"] + box["width"] <= size["width"] + 0.5
        assert inside and box["y"] + box["height"] <= size["height"] + 0.5, controls.nth(index).evaluate(
            "el => el.outerHTML.slice(0, 120)"
        )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["americana", "classic"])
@pytest.mark.parametrize("locale", ["ro-RO", "en-GB"])
def test_four_players_fit_a_phone_and_use_a_large_screen(
    browser: Browser, live_server_url: str, game: str, locale: str
):
    table, ana = off_loop(table_with_bots, game, 4)
    context = browser.new_context(locale=locale, viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    log_in(page, live_server_url, ana.username)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    live(page)
    expect(page.locator(".me-line.is-to-act")).to_be_visible()
    expect(page.locator("#opponents .opponent")).to_have_count(3)
    language = locale[:2]
    assert_fits(page)
    page.screenshot(path=ARTIFACTS / f"craft-{game}-375x667-{language}.png")
    if game == "americana":
        seven = page.locator("#hand-area input[data-seven]")
        if seven.count():
            seven.first.evaluate("input => input.click()")
            expect(page.locator(".suit-picker")).to_be_visible()
            assert_fits(page)
            page.screenshot(path=ARTIFACTS / f"craft-{game}-375x667-seven-{language}.png")
            page.keyboard.press("Escape")

    page.set_viewport_size(PHONE_LANDSCAPE)
    assert_fits(page)
    page.screenshot(path=ARTIFACTS / f"craft-{game}-667x375-{language}.png")

    page.set_viewport_size(DESKTOP)
    assert_fits(page)
    width = page.locator("#hand-area .hand-card .card").first.bounding_box()["width"]
    assert width > 70  # the cards grow with the room
    page.screenshot(path=ARTIFACTS / f"craft-{game}-1280x800-{language}.png")
    context.close()


HAND_OF = """(count) => {
    // The hand's labels, copied or cut down to ``count`` cards.
    const hand = document.querySelector("#hand-area .hand");
    const labels = [...hand.querySelectorAll(".hand-card")];
    labels.slice(count).forEach((label) => label.remove());
    for (let index = labels.length; index < count; index++) {
        hand.append(labels[index % labels.length].cloneNode(true));
    }
    const area = hand.closest("#hand-area").getBoundingClientRect();
    const cards = [...hand.querySelectorAll(".hand-card .card")].map((card) => card.getBoundingClientRect());
    return {
        area: [area.left, area.right],
        cards: cards.map((box) => [box.left, box.right, box.top]),
        page: document.documentElement.scrollWidth,
    };
}"""


@pytest.mark.django_db(transaction=True)
def test_a_hand_of_any_size_is_drawn_whole_inside_its_area(browser: Browser, live_server_url: str):
    """However many cards a player holds (Americana's draws can leave 30 in a hand), each card is
    drawn whole inside the hand's area, on a phone upright or on its side and on a large screen,
    and a hand of one row sits in the middle."""
    table, ana = off_loop(table_with_bots, "americana", 2)
    context = browser.new_context(locale="en-GB", viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    log_in(page, live_server_url, ana.username)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    live(page)
    expect(page.locator(".me-line.is-to-act")).to_be_visible()
    for viewport in (PHONE, PHONE_LANDSCAPE, DESKTOP):
        page.set_viewport_size(viewport)
        for count in range(1, 31):
            drawn = page.evaluate(HAND_OF, count)
            (left, right), cards = drawn["area"], drawn["cards"]
            where = f"{count} cards at {viewport['width']} px"
            assert drawn["page"] <= viewport["width"], where
            outside = [box for box in cards if box[0] < left or box[1] > right + 0.5]
            assert not outside, f"{where}: cards past the hand's area {left:.0f}–{right:.0f}: {outside}"
            if len({box[2] for box in cards}) == 1:
                middle = (cards[0][0] + cards[-1][1]) / 2
                assert abs(middle - (left + right) / 2) <= 2, f"{where}: one row off the middle"
    context.close()


def serious_violations(page: Page) -> list[str]:
    page.add_script_tag(path=AXE)
    found = page.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ["violations"]});
            return result.violations
                .filter(v => v.impact === "serious" || v.impact === "critical")
                .map(v => `${v.id}: ${v.nodes.map(n => n.target.join(" ")).join(", ")}`);
        }"""
    )
    return found


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("game", "locale"), [("americana", "en-GB"), ("classic", "ro-RO")])
def test_the_table_passes_an_accessibility_scan(
    browser: Browser, live_server_url: str, game: str, locale: str
):
    table, ana = off_loop(table_with_bots, game, 4)
    # The site's CSP lets only its own scripts run; the scanner is injected by the test.
    context = browser.new_context(locale=locale, viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    log_in(page, live_server_url, ana.username)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    live(page)
    expect(page.locator(".me-line.is-to-act")).to_be_visible()
    first = page.locator("#hand-area input[name=card]").first
    spoken = first.evaluate(
        "input => input.closest('label').querySelector('.card').getAttribute('aria-label')"
    )
    expect(page.get_by_role("radio", name=spoken, exact=True)).to_have_count(1)
    first.evaluate("input => input.click()")
    assert serious_violations(page) == []

    # The four-colour deck is a setting kept in this browser.
    page.get_by_test_id("settings").locator("summary").click()
    page.locator("[data-setting='four-colour']").check()
    page.reload()
    expect(page.get_by_test_id("play")).to_have_class(re.compile(r"\bfour-colour\b"))
    context.close()
