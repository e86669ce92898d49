"""The practice page on a device several people share, in Chromium: after a log-out the page the device
keeps shows nobody, even offline; the next person neither sees nor can save the matches of the one
before; and the guest's matches stay apart from every person's, and stay."""

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import log_in, off_loop
from tests.browser.test_practice_browser import PHONE, play_to_end, play_turns, ready, start, table_position
from tests.factories import make_user


def practice(page: Page, base: str) -> None:
    page.goto(f"{base}/practice/")
    ready(page, "en-GB")


def log_out(page: Page) -> None:
    """Log out and wait until the page after it has told the device nobody is here: its script runs
    deferred, after the top bar shows, and a page left before that keeps the last person's name."""
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("navigation").get_by_role("link", name="Log in")).to_be_visible()
    page.wait_for_function("() => localStorage.getItem('practice.person') === null")


@pytest.mark.django_db(transaction=True)
def test_after_logging_out_the_practice_page_offline_shows_nobody(browser: Browser, live_server_url: str):
    off_loop(make_user, "zorela")
    context = browser.new_context(locale="en-GB", viewport=PHONE)
    page = context.new_page()
    log_in(page, live_server_url, "zorela")
    practice(page, live_server_url)
    expect(page.get_by_test_id("profile-link")).to_have_text("zorela")  # asked of the server, online
    log_out(page)

    context.set_offline(True)
    practice(page, live_server_url)
    assert "zorela" not in page.content()
    expect(page.get_by_role("button", name="Log out")).to_have_count(0)
    kept = page.evaluate("async () => await (await caches.match('/practice/')).text()")
    assert "zorela" not in kept and "/accounts/logout/" not in kept
    start(page, "classic", "2")
    expect(page.get_by_test_id("hand-area")).to_have_attribute("data-me", "Guest")
    context.close()


@pytest.mark.django_db(transaction=True)
def test_the_next_person_sees_nothing_of_the_matches_before_and_the_guests_stay_apart(
    browser: Browser, live_server_url: str
):
    off_loop(make_user, "zorela")
    off_loop(make_user, "ion")
    context = browser.new_context(locale="en-GB", viewport=PHONE)
    page = context.new_page()
    practice(page, live_server_url)  # a guest starts a match
    start(page, "americana", "2")
    play_turns(page, 2)
    guests = table_position(page)

    log_in(page, live_server_url, "zorela")
    practice(page, live_server_url)
    expect(page.get_by_test_id("practice-setup")).to_be_visible()  # the guest's match is not hers
    expect(page.get_by_test_id("practice-past")).to_be_hidden()
    start(page, "classic", "2")
    expect(page.get_by_test_id("hand-area")).to_have_attribute("data-me", "zorela")
    play_to_end(page)
    expect(page.locator('[data-practice="save"]')).to_be_visible()
    page.get_by_test_id("practice-new").click()
    expect(page.get_by_test_id("practice-past").locator("li")).to_have_count(1)
    hers = page.evaluate("() => JSON.parse(localStorage.getItem(practiceRecords.key('past')))[0].record")
    log_out(page)

    log_in(page, live_server_url, "ion")
    practice(page, live_server_url)
    expect(page.get_by_test_id("practice-setup")).to_be_visible()
    expect(page.get_by_test_id("practice-past")).to_be_hidden()  # nothing of hers to open or save
    stored = page.evaluate("() => JSON.stringify(localStorage)")
    assert str(hers["seed"]) not in stored, "her matches are gone from the device, not only hidden"
    log_out(page)

    practice(page, live_server_url)  # the guest again: their match resumes where it was
    assert table_position(page) == guests
    context.close()
