"""On a 375 px phone, in Romanian: a player asks for the review of a finished match, watches its
progress, reads her accuracy and marks, and finds a marked decision in the replay."""

import re

import pytest
from django.db import connection
from playwright.sync_api import Browser, expect

from gameplay.models import Match
from reviews.models import Review
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.history.helpers import play_out, seated_match


def played_match() -> Match:
    """Ana and Ion play a classic match of several deals to its end (people only: no bot turns)."""
    people = [make_user("ana"), make_user("ion")]
    try:
        return play_out(seated_match("classic", people, {"players": 2, "match": "points21"}, private=True), 5)
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_player_asks_for_a_review_watches_it_and_reads_the_marked_replay(browser: Browser, live_server_url):
    match = off_loop(played_match)
    context = browser.new_context(locale="ro-RO", viewport={"width": 375, "height": 667})
    context.add_cookies([{"name": "django_language", "value": "ro", "url": live_server_url}])
    page = context.new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/matches/{match.pk}/")
    panel = page.get_by_test_id("review-panel")
    expect(panel).to_contain_text("Analiza deciziilor tale")
    page.get_by_test_id("review-ask").click()

    # The page polls the panel while a worker judges the decisions: the progress, then the marks.
    expect(page.get_by_test_id("review-progress")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "review-progress-ro.png", full_page=True)
    summary = page.get_by_test_id("review")
    expect(summary).to_be_visible(timeout=90_000)
    review = Review.objects.get(match=match, seat=0)
    assert review.status == Review.Status.DONE and review.total > 0
    expect(summary).to_contain_text(f"{int(review.accuracy + 0.5)}%")
    expect(summary.locator("svg[role=img] title")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375, "nothing wider than the phone"
    page.screenshot(path=ARTIFACTS / "review-done-ro.png", full_page=True)

    # A decision's link opens the replay at that move, with its mark beside it.
    marked = page.locator('[data-testid="review"] a[href*="replay"]').first
    if marked.count():
        marked.click()
    else:  # every decision was the best one: the replay still marks them
        decision = review.decisions[0]
        step = decision["number"] + decision["round"] - 1
        page.goto(f"{live_server_url}/matches/{match.pk}/replay/?step={step}")
    mark = page.get_by_test_id("replay-mark")
    expect(mark).to_be_visible()
    expect(mark).to_contain_text(re.compile(r"Cea mai bună|cea mai bună"))
    page.screenshot(path=ARTIFACTS / "review-replay-ro.png", full_page=True)
    context.close()
