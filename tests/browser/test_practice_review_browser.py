"""A finished practice match reviewed on the device, offline, in Chromium: the worker judges the person's
decisions one by one (a progress bar counts them), shows the accuracy, the marks and the drawing in
place of the table, and keeps the review with the match, so the list of past matches shows it again
without judging anything."""

import json
import re

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_practice_browser import PHONE, first_visit, play_to_end, ready, start
from tests.conftest import ARTIFACTS

REVIEW_TIMEOUT = 180_000

KEPT_REVIEW = """() => {
  const key = Object.keys(localStorage).find((name) => name.endsWith(".past"));
  return JSON.parse(localStorage.getItem(key))[0].review ?? null;
}"""


@pytest.mark.django_db(transaction=True)
def test_a_finished_practice_match_is_reviewed_offline_and_kept(browser: Browser, live_server_url: str):
    context = browser.new_context(locale="en-GB", viewport=PHONE)
    page = first_visit(context, live_server_url, "en-GB")
    context.set_offline(True)
    page.reload()
    ready(page, "en-GB")
    start(page, "classic", "2")
    play_to_end(page)

    page.get_by_test_id("practice-review-start").click()
    expect(page.get_by_test_id("practice-table")).to_be_hidden()
    expect(page.get_by_test_id("review-accuracy")).to_have_text(
        re.compile(r"^Accuracy \d+%$"), timeout=REVIEW_TIMEOUT
    )
    expect(page.get_by_test_id("practice-review-status")).to_have_text(
        re.compile(r"^Reviewing: (\d+) of \1 decisions$")
    )
    expect(page.get_by_test_id("review-plot")).to_be_visible()
    accuracy = page.get_by_test_id("review-accuracy").inner_text()
    page.screenshot(path=ARTIFACTS / "practice-review-en.png", full_page=True)
    kept = page.evaluate(KEPT_REVIEW)
    assert kept["game"] == "classic" and kept["decisions"]
    marked = sum(1 for decision in kept["decisions"] if decision["label"])
    expect(page.locator(".review-mark")).to_have_count(marked)

    page.get_by_test_id("practice-review-close").click()
    expect(page.get_by_test_id("match-over")).to_be_visible()
    page.get_by_test_id("practice-new").click()
    page.get_by_test_id("practice-past").get_by_role("button", name="Review this match").first.click()
    expect(page.get_by_test_id("review-accuracy")).to_have_text(accuracy)
    assert page.get_by_test_id("practice-review-status").inner_text() == "", "kept, not judged again"
    assert json.dumps(page.evaluate(KEPT_REVIEW)) == json.dumps(kept)

    page.reload()  # asked for as the page opens, perhaps before Python has started: shown once it has
    page.get_by_test_id("practice-past").get_by_role("button", name="Review this match").first.click()
    expect(page.get_by_test_id("review-accuracy")).to_have_text(accuracy, timeout=REVIEW_TIMEOUT)
    context.close()
