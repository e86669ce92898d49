"""A page saves a finished practice match as the practice table will: ``fetch`` with the JSON upload and
the CSRF token from its cookie in ``X-CSRFToken``; the match then opens in history marked as practice."""

import pytest
from django.db import connection
from playwright.sync_api import Browser, expect

from gameplay.models import Match
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.practice.helpers import forget_upload_budgets
from tests.practice.test_save import practice_upload

SAVE_FROM_THE_PAGE = """async (upload) => {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken=")).split("=")[1];
  const response = await fetch("/practice/save/", {
    method: "POST",
    headers: {"Content-Type": "application/json", "X-CSRFToken": token},
    body: JSON.stringify(upload),
  });
  return {status: response.status, body: await response.json()};
}"""


def in_thread(function):
    """``function``'s result, read in a thread of its own whose connection ends with it."""

    def run():
        try:
            return function()
        finally:
            connection.close()

    return off_loop(run)


@pytest.mark.django_db(transaction=True)
def test_a_page_saves_a_practice_match_and_history_marks_it(browser: Browser, live_server_url: str):
    forget_upload_budgets()
    in_thread(lambda: make_user("ana"))
    upload = practice_upload("classic", {"players": 2})
    page = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844}).new_page()
    log_in(page, live_server_url, "ana")

    saved = page.evaluate(SAVE_FROM_THE_PAGE, upload)
    assert saved["status"] == 201
    again = page.evaluate(SAVE_FROM_THE_PAGE, upload)
    assert again == {"status": 200, "body": saved["body"]}
    tampered = page.evaluate(SAVE_FROM_THE_PAGE, {**upload, "seed": upload["seed"] + 1})
    assert tampered["status"] == 400 and "does not replay" in tampered["body"]["error"]
    assert in_thread(lambda: Match.objects.filter(practice=True).count()) == 1

    page.goto(live_server_url + saved["body"]["url"])
    expect(page.get_by_test_id("practice-badge")).to_have_text("Practice")
    page.screenshot(path=ARTIFACTS / "practice-saved-match-en.png", full_page=True)
    page.get_by_test_id("my-matches-link").click()
    expect(page.get_by_test_id("match-list").get_by_test_id("practice-badge")).to_have_count(1)

    page.context.add_cookies([{"name": "django_language", "value": "ro", "url": live_server_url}])
    refused = page.evaluate(SAVE_FROM_THE_PAGE, {**upload, "actions": upload["actions"][:-1]})
    assert refused["status"] == 400 and refused["body"]["error"].startswith("Partida nu s-a terminat")
    page.goto(live_server_url + saved["body"]["url"])
    expect(page.get_by_test_id("practice-badge")).to_have_text("Antrenament")
    page.screenshot(path=ARTIFACTS / "practice-saved-match-ro.png", full_page=True)
