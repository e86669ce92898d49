"""Practice offline, in Chromium: the first visit gets the table onto the device, then with the network
cut the page opens, deals, plays whole matches by clicks, resumes after a reload, and sends nothing
anywhere; back online a finished match is saved to history (and a tampered one refused)."""

import json
import re

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from bench.management.commands.practicebench import take_turn
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.practice.helpers import forget_upload_budgets

PHONE = {"width": 375, "height": 667}
READY = {"en-GB": "Ready offline", "ro-RO": "Gata și fără conexiune"}
BOOT_TIMEOUT = 120_000


def ready(page: Page, locale: str) -> None:
    """The practice page with its files on the device and Python started in its worker."""
    expect(page.get_by_test_id("practice-status")).to_have_text(READY[locale], timeout=BOOT_TIMEOUT)
    expect(page.get_by_test_id("practice")).to_have_attribute("data-booted", re.compile(r"\d+"))


def first_visit(context: BrowserContext, base: str, locale: str) -> Page:
    page = context.new_page()
    page.goto(f"{base}/practice/")
    ready(page, locale)
    assert page.evaluate("async () => (await navigator.serviceWorker.ready).active.state") == "activated"
    return page


def start(page: Page, game: str, players: str) -> None:
    page.locator(f'input[name="game"][value="{game}"]').check()
    page.locator(f"#id_{game}_players").select_option(players)
    page.locator("#id_fast_bots").check()
    page.get_by_test_id("practice-start").click()
    expect(page.locator(".play input[name=version]")).to_be_attached(timeout=20_000)


def play_to_end(page: Page, *, turns: int = 800) -> None:
    """The person plays each of their turns by clicks (a playable card, else the button the rules
    give) until the match-over sheet shows; the bots play theirs in the worker."""
    for _turn in range(turns):
        if page.get_by_test_id("match-over").count():
            return
        if not page.locator(".me-line.is-to-act").count():
            page.wait_for_timeout(100)
            continue
        version = page.locator("input[name=version]").input_value()
        take_turn(page)
        expect(page.locator("input[name=version]")).not_to_have_value(version, timeout=10_000)
    expect(page.get_by_test_id("match-over")).to_be_visible(timeout=30_000)


def play_turns(page: Page, count: int) -> None:
    for _ in range(count):
        expect(page.locator(".me-line.is-to-act")).to_be_visible(timeout=20_000)
        version = page.locator("input[name=version]").input_value()
        take_turn(page)
        expect(page.locator("input[name=version]")).not_to_have_value(version, timeout=10_000)


def table_position(page: Page) -> tuple[str, list[str], str]:
    """What the player sees of where the match stands: the version, their hand, the centre."""
    expect(page.locator(".me-line.is-to-act")).to_be_visible(timeout=20_000)
    hand = page.locator(".hand .card").evaluate_all("cards => cards.map(card => card.dataset.code)")
    centre = page.get_by_test_id("center").inner_text()
    return page.locator("input[name=version]").input_value(), hand, centre


LOWEST_CONTRAST = """(after) => {
    const luminance = (color) => {
        const [r, g, b] = color.match(/[\\d.]+/g).slice(0, 3).map((c) => c / 255)
            .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const paper = luminance(getComputedStyle(after.closest(".sheet")).backgroundColor);
    return [...after.querySelectorAll(".button:not([hidden])")].map((button) => {
        const style = getComputedStyle(button);
        const ground = style.backgroundColor.endsWith(", 0)") ? paper : luminance(style.backgroundColor);
        const [light, dark] = [luminance(style.color), ground].sort((a, b) => b - a);
        return (light + 0.05) / (dark + 0.05);
    });
}"""
"""The contrast of each button's words with what is behind them (the sheet's paper for an outlined one)."""


def no_request_leaves(context: BrowserContext) -> list[str]:
    """Every request that would reach the network from now on (the page's and its workers'), refused."""
    left: list[str] = []

    def refuse(route):
        left.append(route.request.url)
        route.abort()

    context.route("**/*", refuse)
    return left


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("locale", "games"),
    [("en-GB", [("americana", "2"), ("classic", "2")]), ("ro-RO", [("classic", "4"), ("americana", "3")])],
)
def test_practice_installs_then_plays_offline_to_the_end_and_resumes(
    browser: Browser, live_server_url: str, locale: str, games: list[tuple[str, str]]
):
    context = browser.new_context(locale=locale, viewport=PHONE)
    page = first_visit(context, live_server_url, locale)
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/practice/manifest.webmanifest") and not manifest["errors"]
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []

    context.set_offline(True)
    page.reload()
    ready(page, locale)
    left = no_request_leaves(context)
    first_game, players = games[0]
    start(page, first_game, players)
    play_turns(page, 3)
    before = table_position(page)
    page.reload()
    ready(page, locale)
    assert table_position(page) == before, "a reload offline resumes exactly where the match was"
    play_to_end(page)
    expect(page.locator('[data-practice="save"]')).to_be_hidden()  # saving needs an account
    page.screenshot(path=ARTIFACTS / f"practice-{locale}-{first_game}-over.png")
    page.get_by_test_id("practice-new").click()
    second_game, players = games[1]
    start(page, second_game, players)
    play_to_end(page)
    page.screenshot(path=ARTIFACTS / f"practice-{locale}-{second_game}-over.png")
    # From the first Start to the last match's end, the only tries at the network were the reload's
    # (a page reloads from the network when it can; the service worker answered it from the device)
    # and the page's question of who is logged in (offline, the person last seen here).
    assert left == [f"{live_server_url}/practice/", f"{live_server_url}/practice/me/"]
    past = page.get_by_test_id("practice-past").locator("li")
    expect(past).to_have_count(2)
    page.get_by_test_id("practice-new").click()
    past.first.locator("[data-open]").click()  # a kept match opens offline, its score sheet on show
    expect(page.get_by_test_id("match-over")).to_be_visible()
    expect(page.get_by_test_id("match-over").get_by_test_id("score-sheet")).to_be_visible()
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_finished_practice_match_is_saved_to_history_and_a_tampered_one_refused(
    browser: Browser, live_server_url: str
):
    forget_upload_budgets()
    off_loop(make_user, "ana")
    context = browser.new_context(locale="en-GB", viewport=PHONE)
    page = context.new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/practice/")
    ready(page, "en-GB")
    context.set_offline(True)
    start(page, "classic", "2")
    play_to_end(page)
    save = page.locator('[data-practice="save"]')
    expect(save).to_be_visible()
    # The sheet's buttons (Play again, New match, Save) read clearly on its paper (WCAG AA).
    assert min(page.get_by_test_id("practice-after").evaluate(LOWEST_CONTRAST)) >= 4.5
    save.click()
    expect(page.get_by_test_id("practice-saved")).to_contain_text("needs a connection")
    context.set_offline(False)
    save.click()
    expect(page.get_by_test_id("practice-saved")).to_contain_text("Saved to your history.", timeout=20_000)
    expect(save).to_be_hidden()  # saved once; a second try would keep the one match anyway
    record = json.loads(page.evaluate("() => localStorage.getItem(practiceRecords.key('past'))"))[0]["record"]

    tampered = {**record, "actions": [*record["actions"][:-3], *record["actions"][-2:]]}
    answer = page.evaluate(
        """async (body) => {
            const token = document.cookie.match(/csrftoken=([^;]+)/)[1];
            const response = await fetch("/practice/save/", {method: "POST", body: JSON.stringify(body),
                headers: {"Content-Type": "application/json", "X-CSRFToken": token}});
            return [response.status, await response.json()];
        }""",
        tampered,
    )
    assert answer[0] == 400 and answer[1]["error"]

    # A match this version cannot replay (as an older version's might be) is kept, and said so.
    broken = {**record, "seed": record["seed"] + 1, "actions": [{"type": "play", "card": "XR"}]}
    keep = "(record) => localStorage.setItem(practiceRecords.key('current'), JSON.stringify(record))"
    page.evaluate(keep, broken)
    page.reload()
    expect(page.get_by_test_id("practice-status")).to_contain_text("no longer replays", timeout=120_000)
    expect(page.get_by_test_id("practice-past")).to_contain_text("no longer replays")

    page.get_by_test_id("practice-past").get_by_role("link").first.click()
    expect(page.locator("main")).to_contain_text("Practice")
    page.screenshot(path=ARTIFACTS / "practice-saved-match.png")
    context.close()
