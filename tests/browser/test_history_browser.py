"""After playing, a player finds the match, reads and downloads its score sheet, prints it, and
replays it move by move with the keyboard, in English and in Romanian."""

import re

import pytest
from django.db import connection
from django.template.loader import render_to_string
from playwright.sync_api import Browser, Page, expect

from gameplay.models import Match
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.history.helpers import play_out, seated_match


def played_match() -> Match:
    """Ana and Ion play a private Americana match to its end (nobody else: no bot turns are queued)."""
    people = [make_user("ana"), make_user("ion")]
    try:
        return play_out(seated_match("americana", people, {"players": 2}, private=True))
    finally:
        connection.close()  # this runs in a thread of its own: its connection ends with it


def counter(page: Page):
    return page.get_by_test_id("step-counter")


def csp_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


@pytest.mark.django_db(transaction=True)
def test_a_player_finds_reads_downloads_and_replays_a_match(browser: Browser, live_server_url: str):
    match = off_loop(played_match)
    last = match.moves.count() + match.rounds.count() - 1
    page = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844}).new_page()
    errors = csp_errors(page)
    log_in(page, live_server_url, "ana")

    page.get_by_test_id("my-matches-link").click()
    row = page.locator(f'tr[data-match="{match.pk}"]')
    expect(row).to_contain_text("ion")
    page.screenshot(path=ARTIFACTS / "history-my-matches-en.png", full_page=True)
    row.locator("a").first.click()

    sheet = page.get_by_test_id("score-sheet")
    expect(sheet.locator("tbody tr")).to_have_count(match.rounds.count())
    expect(sheet.locator("tfoot")).to_contain_text(str(match.result["totals"][0]))
    page.screenshot(path=ARTIFACTS / "history-score-sheet-en.png", full_page=True)
    with page.expect_download() as download:
        page.get_by_test_id("csv-link").click()
    text = download.value.path().read_text(encoding="utf-8-sig")
    assert text.startswith("Round,Dealer,Went out,ana: charged,ana: total,ion: charged,ion: total")
    assert len(text.splitlines()) == match.rounds.count() + 3

    page.emulate_media(media="print")
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.get_by_test_id("csv-link")).to_be_hidden()
    expect(sheet).to_be_visible()
    page.screenshot(path=ARTIFACTS / "history-score-sheet-print.png", full_page=True)
    page.emulate_media(media="screen")

    page.get_by_test_id("replay-link").click()
    # The replay's keys work once its script has run (deferred, after the site's own): a key pressed
    # before that, on a busy machine, would be lost.
    page.wait_for_load_state("load")
    expect(counter(page)).to_have_text(f"Step 0 of {last}")
    expect(page.get_by_test_id("replay-what")).to_contain_text("Round 1 begins")
    # Both hands, face up.
    expect(page.get_by_test_id("replay-seats").locator(".open-hand .card")).to_have_count(10)
    page.keyboard.press("ArrowRight")
    expect(counter(page)).to_have_text(f"Step 1 of {last}")
    first = match.moves.get(seq=1)
    expect(page.get_by_test_id("replay-what")).to_contain_text(["ana", "ion"][first.seat])
    assert page.evaluate("document.activeElement.dataset.key") == "ArrowRight"
    page.keyboard.press("ArrowRight")
    expect(counter(page)).to_have_text(f"Step 2 of {last}")
    expect(page).to_have_url(re.compile(r"step=2$"))
    page.go_back()
    expect(counter(page)).to_have_text(f"Step 1 of {last}")
    expect(page.locator(".site-header")).to_be_visible()
    page.go_forward()
    expect(counter(page)).to_have_text(f"Step 2 of {last}")
    page.keyboard.press("ArrowLeft")
    expect(counter(page)).to_have_text(f"Step 1 of {last}")
    page.get_by_role("link", name="Forward").click()
    expect(counter(page)).to_have_text(f"Step 2 of {last}")
    page.screenshot(path=ARTIFACTS / "history-replay-en.png", full_page=True)
    page.keyboard.press("End")
    expect(counter(page)).to_have_text(f"Step {last} of {last}")
    expect(page.get_by_test_id("replay-what")).to_contain_text("The match is over.")
    expect(page.locator("#replay-announce")).to_contain_text("The match is over.")
    page.screenshot(path=ARTIFACTS / "history-replay-end-en.png", full_page=True)
    page.keyboard.press("Home")
    expect(counter(page)).to_have_text(f"Step 0 of {last}")

    page.goto(f"{live_server_url}/players/ion/")
    stats = page.get_by_test_id("player-stats").locator('tr[data-game="americana"] td')
    expect(stats.nth(0)).to_have_text("1")  # played
    expect(page.get_by_test_id("match-list").locator(f'tr[data-match="{match.pk}"]')).to_be_visible()
    page.screenshot(path=ARTIFACTS / "history-profile-en.png", full_page=True)
    assert not [error for error in errors if "Content Security Policy" in error]


@pytest.mark.django_db(transaction=True)
def test_the_replay_in_romanian(browser: Browser, live_server_url: str):
    match = off_loop(played_match)
    last = match.moves.count() + match.rounds.count() - 1
    page = browser.new_context(locale="ro-RO", viewport={"width": 1280, "height": 800}).new_page()
    log_in(page, live_server_url, "ion")
    page.goto(f"{live_server_url}/matches/{match.pk}/")
    expect(page.get_by_test_id("score-sheet")).to_contain_text("Runda")
    page.screenshot(path=ARTIFACTS / "history-score-sheet-ro.png", full_page=True)
    page.goto(f"{live_server_url}/matches/{match.pk}/replay/")
    expect(counter(page)).to_have_text(f"Pasul 0 din {last}")
    expect(page.get_by_test_id("replay-what")).to_contain_text("Runda 1 începe")
    page.keyboard.press("ArrowRight")
    expect(counter(page)).to_have_text(f"Pasul 1 din {last}")
    page.keyboard.press("End")
    expect(counter(page)).to_have_text(f"Pasul {last} din {last}")
    page.screenshot(path=ARTIFACTS / "history-replay-end-ro.png", full_page=True)


@pytest.mark.django_db(transaction=True)
def test_a_long_replay_plays_by_itself_at_the_chosen_speed_and_pauses(browser: Browser, live_server_url: str):
    match = off_loop(played_match)
    last = match.moves.count() + match.rounds.count() - 1
    page = browser.new_context(locale="en-GB", viewport={"width": 375, "height": 667}).new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/matches/{match.pk}/replay/")
    play = page.get_by_test_id("replay-play")
    page.get_by_test_id("replay-speed").select_option("400")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    expect(play).to_have_text("Pause")
    # Step after step arrives on its own, 0.4 s apart. Playwright polls at up to a second apart,
    # so it may see any step from the fourth on, not the fourth itself.
    expect(counter(page)).to_have_text(re.compile(rf"^Step ([4-9]|\d\d+) of {last}$"), timeout=5_000)
    # Paused while Play's next step is on its way (held back here): that step is never shown.
    held: list = []
    page.route(re.compile(r"/replay/\?step="), lambda route: held.append(route))
    with page.expect_request(re.compile(r"/replay/\?step=")):
        pass
    paused = counter(page).text_content()
    play.click()
    expect(play).to_have_text("Play")
    with page.expect_response(re.compile(r"/replay/\?step=")):
        held[0].continue_()
    page.unroute(re.compile(r"/replay/\?step="))
    page.wait_for_timeout(1_200)
    assert counter(page).text_content() == paused
    # Playing again from the end starts over; a step taken by hand stops it.
    page.keyboard.press("End")
    expect(counter(page)).to_have_text(f"Step {last} of {last}")
    # The first step is slower to arrive than the chosen speed: Play waits for it, then steps on.
    held.clear()
    page.route(re.compile(r"/replay/\?step=0$"), lambda route: held.append(route))
    with page.expect_request(re.compile(r"/replay/\?step=0$")):
        page.keyboard.press("p")
    page.wait_for_timeout(1_000)
    with page.expect_response(re.compile(r"/replay/\?step=0$")):
        held[0].continue_()
    page.unroute(re.compile(r"/replay/\?step=0$"))
    expect(counter(page)).to_have_text(re.compile(rf"^Step [1-9] of {last}$"), timeout=5_000)
    page.keyboard.press("ArrowLeft")
    expect(play).to_have_attribute("aria-pressed", "false")
    page.screenshot(path=ARTIFACTS / "history-replay-player-en.png", full_page=True)


@pytest.mark.django_db(transaction=True)
def test_a_step_refused_as_too_fast_says_why_and_the_next_one_shows(browser: Browser, live_server_url: str):
    """The server refuses steps asked for too fast (429, as ``history.views._too_fast`` answers htmx):
    the step on screen and the address stay, the refusal shows in the step's notice line, and once
    Play is paused the step asked for by hand is shown (not dropped as Play's own)."""
    match = off_loop(played_match)
    last = match.moves.count() + match.rounds.count() - 1
    refusal = {
        "status": 429,
        "headers": {
            "HX-Retarget": "#replay-notice",
            "HX-Reswap": "innerHTML",
            "HX-Push-Url": "false",
            "Retry-After": "1",
        },
        "content_type": "text/html; charset=utf-8",
        "body": render_to_string("history/replay_too_fast.html#why", {"match": match, "seconds": 1}),
    }
    page = browser.new_context(locale="en-GB", viewport={"width": 375, "height": 667}).new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/matches/{match.pk}/replay/")
    refused = re.compile(r"/replay/\?step=1$")
    page.route(refused, lambda route: route.fulfill(**refusal))
    page.get_by_test_id("replay-speed").select_option("400")
    with page.expect_response(refused):
        page.get_by_test_id("replay-play").click()
    notice = page.get_by_test_id("replay-notice")
    expect(notice).to_have_text("That is faster than anyone watches a replay: wait a second and go on.")
    expect(counter(page)).to_have_text(f"Step 0 of {last}")
    expect(page).to_have_url(re.compile(r"/replay/$"))
    page.keyboard.press("p")
    expect(page.get_by_test_id("replay-play")).to_have_attribute("aria-pressed", "false")
    page.unroute(refused)
    page.keyboard.press("ArrowRight")
    expect(counter(page)).to_have_text(f"Step 1 of {last}")
    expect(notice).to_be_empty()
