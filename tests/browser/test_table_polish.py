"""The table's finish, in a real Chromium: a refused card says why on the device and is never sent,
one-tap play as a setting and the hint that teaches dragging, the countdown to the next deal, the
match's finish, the bots' level badge, and a replay that plays without filling the Back button."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from gameplay import services
from gameplay.engine import get_game
from gameplay.models import Match
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_phone_fit import at_round_over
from tests.browser.test_play_browser import rig
from tests.browser.test_table_craft import (
    DESKTOP,
    PHONE,
    Finger,
    americana_pair,
    card,
    live,
    middle,
)
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.history.helpers import play_out, seated_match

REFUSED = {
    "en": "That card does not follow the 6 of hearts.",
    "ro": "Cartea aceasta nu merge peste șase de inimă roșie.",
}


def frames_sent(page: Page) -> list[str]:
    """Every websocket frame the page sends from now on (the page is reloaded to listen from its start)."""
    sent: list[str] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda payload: sent.append(payload)))
    page.reload()
    live(page)
    return sent


def dimensions(size: dict) -> str:
    return f"{size['width']}x{size['height']}"


def shoot(page: Page, name: str, size: dict) -> None:
    page.set_viewport_size(size)
    page.screenshot(path=ARTIFACTS / f"{name}.png")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", ["en-GB", "ro-RO"])
def test_a_refused_card_says_why_at_once_is_never_sent_and_a_forged_one_is_refused(
    browser: Browser, live_server_url: str, locale: str
):
    hands = [["9H", "KC", "3D", "4D", "5H"], ["9S", "10C", "QC", "5C", "2C"]]
    match, (ana, _ion) = americana_pair(browser, live_server_url, hands, "6H", locales=(locale, "en-GB"))
    language = locale[:2]
    sent = frames_sent(ana)
    king, play = card(ana, "KC"), ana.locator(".play-button")
    expect(king).to_have_class(re.compile(r"\bis-dim\b"))
    expect(king).to_have_attribute("data-refusal", REFUSED[language])
    expect(play).to_be_disabled()

    # A click on the dimmed king: the reason at once, aloud (an alert), nothing picked or sent.
    # (Forced: Playwright will not click a control marked aria-disabled, as a person may.)
    king.click(force=True)
    notice = ana.locator("#notice")
    expect(notice).to_have_text(REFUSED[language])
    expect(notice).to_have_attribute("role", "alert")
    expect(king.locator("input")).not_to_be_checked()
    expect(play).to_be_disabled()
    shoot(ana, f"polish-refused-375x667-{language}", PHONE)
    shoot(ana, f"polish-refused-1280x800-{language}", DESKTOP)
    ana.set_viewport_size(PHONE)

    # By keyboard: Enter on the king says the same; it stays unpicked.
    ana.evaluate("document.getElementById('notice').textContent = ''")
    king.locator("input").focus()
    ana.keyboard.press("Enter")
    expect(notice).to_have_text(REFUSED[language])
    expect(king.locator("input")).not_to_be_checked()
    # A card the rules allow is picked, and Play opens for it.
    card(ana, "9H").click()
    expect(play).to_be_enabled()
    card(ana, "9H").click()
    expect(play).to_be_disabled()
    assert sent == []

    # The server still refuses the king sent by hand, in the same words, and nothing is played.
    ana.evaluate(
        """() => {
            document.querySelector("#hand-area input[value=KC]").checked = true;
            const play = document.querySelector("#hand-area .play-button");
            play.disabled = false;
            document.getElementById("notice").textContent = "";
            document.getElementById("hand-area").requestSubmit(play);
        }"""
    )
    expect(notice).to_have_text(REFUSED[language])
    assert len(sent) == 1 and '"KC"' in sent[0]
    match.refresh_from_db()
    assert match.moves.count() == 0
    assert ana.script_errors == []


@pytest.mark.django_db(transaction=True)
def test_one_tap_play_is_a_setting_and_a_hint_teaches_dragging_until_a_few_cards_are_played(
    browser: Browser, live_server_url: str
):
    hands = [["9H", "7S", "5H", "4D", "3D"], ["9S", "5C", "5D", "QC", "10S"]]
    match, (ana, ion) = americana_pair(browser, live_server_url, hands, "6H", touch=True)
    finger = Finger(ana)
    hint = ana.get_by_test_id("play-hint")
    expect(hint).to_have_text("Drag a card to the table, or tap it and press Play.", use_inner_text=True)
    expect(hint).to_be_visible()
    shoot(ana, "polish-hint-1280x800-en", DESKTOP)
    ana.set_viewport_size(PHONE)

    # Two taps by default: a tap picks, a second tap puts the card back; nothing is played.
    nine = card(ana, "9H")
    finger.tap(middle(nine))
    expect(nine.locator("input")).to_be_checked()
    expect(ana.locator(".play-button")).to_be_enabled()
    finger.tap(middle(nine))
    expect(nine.locator("input")).not_to_be_checked()
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "6H")

    # One tap, as a setting kept in this browser: the hint says so, and a tap plays the card.
    ana.get_by_test_id("settings").locator("summary").click()
    ana.locator("[data-setting='one-tap']").check()
    shoot(ana, "polish-settings-1280x800-en", DESKTOP)
    ana.set_viewport_size(PHONE)
    ana.keyboard.press("Escape")
    ana.reload()
    live(ana)
    expect(ana.locator("[data-setting='one-tap']")).to_be_checked()
    expect(hint).to_have_text("Drag a card to the table, or tap it to play it.", use_inner_text=True)
    finger.tap(middle(card(ana, "9H")))
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "9H")

    # Ion (Romanian, two taps) reads the hint in his language.
    expect(ion.get_by_test_id("play-hint")).to_have_text(
        "Trage o carte spre mijlocul mesei ca s-o joci, sau atinge-o și apasă Joacă.", use_inner_text=True
    )
    ion.screenshot(path=ARTIFACTS / "polish-hint-375x667-ro.png")
    ion.get_by_test_id("settings").locator("summary").click()
    expect(ion.locator("[data-setting='one-tap']")).not_to_be_checked()
    ion.screenshot(path=ARTIFACTS / "polish-settings-375x667-ro.png")
    ion.keyboard.press("Escape")
    card(ion, "9S").click()
    ion.locator(".play-button").click()

    # A seven still asks for its suit before it lands.
    expect(ana.locator(".me-line.is-to-act")).to_be_visible()
    finger.tap(middle(card(ana, "7S")))
    expect(ana.locator(".suit-picker")).to_be_visible()
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "9S")
    finger.tap(middle(ana.locator(".suit-picker button[value='C']")))
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "7S")
    card(ion, "5C").click()
    ion.locator(".play-button").click()

    # The third card played: the hint has done its work.
    expect(ana.locator(".me-line.is-to-act")).to_be_visible()
    finger.tap(middle(card(ana, "5H")))
    expect(ana.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "5H")
    card(ion, "5D").click()
    ion.locator(".play-button").click()
    expect(ana.locator(".me-line.is-to-act")).to_be_visible()
    expect(hint).to_be_hidden()
    moves = list(match.moves.order_by("seq").values_list("action", flat=True))
    assert moves[0] == {"type": "play", "card": "9H"}
    assert moves[2] == {"type": "play", "card": "7S", "suit": "C"}
    assert moves[4] == {"type": "play", "card": "5H"}
    assert ana.script_errors == [] and ion.script_errors == []


def round_over_with_a_deal_due(game: str, seconds: int) -> Match:
    """Ana and Ion's match at the end of its first round or deal, the next one due in ``seconds``."""
    try:
        people = [make_user("ana"), make_user("ion")]
        match = at_round_over(game, people)
        due_at = timezone.now() + timedelta(seconds=seconds)
        Match.objects.filter(pk=match.pk).update(version=F("version") + 1, due=Match.Due.DEAL, due_at=due_at)
        return match
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", ["americana", "classic"])
def test_the_round_over_sheet_counts_down_to_the_next_deal(browser: Browser, live_server_url: str, game: str):
    match = off_loop(round_over_with_a_deal_due, game, 40)
    words = {
        ("americana", "en"): "The next round starts in",
        ("americana", "ro"): "Următoarea rundă începe în",
        ("classic", "en"): "The next deal starts in",
        ("classic", "ro"): "Următoarea împărțire începe în",
    }
    for username, locale, size in (("ana", "ro-RO", PHONE), ("ion", "en-GB", DESKTOP)):
        language = locale[:2]
        page = browser.new_context(locale=locale, viewport=size).new_page()
        log_in(page, live_server_url, username)
        page.goto(f"{live_server_url}/tables/{match.table_id}/")
        sheet = page.get_by_test_id("round-over")
        expect(sheet).to_be_visible()
        timer = sheet.get_by_role("timer")
        expect(timer).to_have_text(re.compile(r"^0:[34][0-9]$"))
        expect(sheet.locator(".next-deal")).to_contain_text(words[game, language])
        # It counts down: a later reading is lower. (Both readings waited for, not read once: the
        # socket's first frame may redraw the sheet, its timer empty until the next tick, at any time.)
        shown_now = "(selector) => document.querySelector(selector)?.textContent || null"
        counted = page.wait_for_function(
            shown_now, arg='[data-testid="round-over"] [role="timer"]'
        ).json_value()
        assert re.fullmatch(r"0:[34][0-9]", counted), counted
        page.wait_for_function(
            """([selector, counted]) => {
                const shown = document.querySelector(selector)?.textContent;
                return Boolean(shown) && shown < counted;
            }""",
            arg=['[data-testid="round-over"] [role="timer"]', counted],
            timeout=30_000,  # a second's tick on a loaded machine
        )
        page.screenshot(path=ARTIFACTS / f"polish-{game}-countdown-{dimensions(size)}-{language}.png")
        page.context.close()


def finished_for_ana() -> Match:
    try:
        people = [make_user("ana"), make_user("ion")]
        return play_out(seated_match("americana", people, {"players": 2}, private=True))
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("motion", "moves"), [("no-preference", True), ("reduce", False)])
def test_the_match_ends_with_a_flourish_for_the_winner_unless_motion_is_reduced(
    browser: Browser, live_server_url: str, motion: str, moves: bool
):
    match = off_loop(finished_for_ana)
    winner = ["ana", "ion"][match.result["winners"][0]]
    for locale, size in (("ro-RO", PHONE), ("en-GB", DESKTOP)):
        page = browser.new_context(locale=locale, viewport=size, reduced_motion=motion).new_page()
        log_in(page, live_server_url, "ana")
        page.goto(f"{live_server_url}/tables/{match.table_id}/")
        sheet = page.get_by_test_id("match-over")
        expect(sheet).to_be_visible()
        expect(sheet.locator("h2")).to_contain_text(winner)
        expect(sheet.locator("thead .is-winner")).to_have_text(winner)
        expect(sheet.locator(".finish-fan .fan-card")).to_have_count(4)
        running = sheet.evaluate("el => el.getAnimations({subtree: true}).length")
        assert (running > 0) is moves
        # Still or moving, the fan ends fanned out.
        sheet.evaluate("el => el.getAnimations({subtree: true}).forEach((a) => a.finish())")
        angle = sheet.locator(".fan-card.suit-S").evaluate("el => getComputedStyle(el).transform")
        assert angle != "none"
        if motion == "no-preference":
            language = locale[:2]
            page.screenshot(path=ARTIFACTS / f"polish-match-over-{dimensions(size)}-{language}.png")
        page.context.close()


def ion_stood_in_for() -> Match:
    """Ana, Ion and an easy bot at a table, Ion to play first; a bot stands in for Ion."""
    try:
        match = seated_match("americana", [make_user("ana"), make_user("ion")], {"players": 3}, private=True)
        game = get_game("americana")
        dealt = game.state_to_json(game.new_match(game.options_from_json(match.options), match.seed))
        rig(match, {key: dealt[key] for key in ("hands", "pile", "stock")} | {"dealer": 0})
        assert services.seat_stand_in(match_id=match.pk, seat=1, expected_version=match.version)
        return match
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_bots_badge_gives_its_level_and_a_stand_in_says_whom_it_plays_for(
    browser: Browser, live_server_url: str
):
    match = off_loop(ion_stood_in_for)
    for locale, size, words in (
        ("ro-RO", PHONE, ("ușor", "nivelul botului: ușor", "bot pentru ion")),
        ("en-GB", DESKTOP, ("easy", "bot level: easy", "bot for ion")),
    ):
        page = browser.new_context(locale=locale, viewport=size).new_page()
        log_in(page, live_server_url, "ana")
        page.goto(f"{live_server_url}/tables/{match.table_id}/")
        live(page)
        bot = page.get_by_test_id("opponent-2")
        expect(bot.locator(".opponent-name")).to_have_text("Bot 3")
        badge = bot.locator(".badge-bot")
        expect(badge).to_have_text(words[1])  # what a screen reader says
        assert badge.evaluate("el => el.lastChild.textContent.trim()") == words[0]  # what shows
        expect(page.get_by_test_id("opponent-1").locator(".badge-bot")).to_have_text(words[2])
        page.screenshot(path=ARTIFACTS / f"polish-bot-badges-{dimensions(size)}-{locale[:2]}.png")
        page.context.close()


@pytest.mark.django_db(transaction=True)
def test_a_replay_playing_by_itself_leaves_one_history_entry_and_back_leaves_it(
    browser: Browser, live_server_url: str
):
    match = off_loop(finished_for_ana)
    page = browser.new_context(locale="en-GB", viewport=PHONE).new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/matches/{match.pk}/")
    page.goto(f"{live_server_url}/matches/{match.pk}/replay/")
    entries = page.evaluate("history.length")
    counter = page.get_by_test_id("step-counter")

    # A step chosen by hand is an entry of its own: Back returns to the step before.
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(re.compile(r"^Step 1 of "))
    assert page.evaluate("history.length") == entries + 1

    # Played by itself, each step replaces the entry.
    page.get_by_test_id("replay-speed").select_option("400")
    page.get_by_test_id("replay-play").click()
    expect(counter).to_have_text(re.compile(r"^Step ([5-9]|[1-9][0-9]+) of "), timeout=10_000)
    page.get_by_test_id("replay-play").click()
    expect(page.get_by_test_id("replay-play")).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("history.length") == entries + 1
    assert re.search(r"step=([5-9]|[1-9][0-9]+)$", page.url)
    page.go_back()
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/replay/$"))
    page.go_back()
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
