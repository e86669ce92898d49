"""The API's pages in Chromium: on a 375 px phone in Romanian, a person makes a token from the profile,
copies it once, sees the API answer with it, and revokes it; on a desktop, the browsable description
of every endpoint draws from the site's own files under its content security policy."""

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import make_user


@pytest.mark.django_db(transaction=True)
def test_a_person_makes_a_token_reads_the_api_with_it_and_revokes_it(browser: Browser, live_server_url):
    off_loop(make_user, "ana")
    context = browser.new_context(locale="ro-RO", viewport={"width": 375, "height": 667})
    context.add_cookies([{"name": "django_language", "value": "ro", "url": live_server_url}])
    page = context.new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/accounts/profile/")
    page.get_by_test_id("api-tokens-link").click()
    expect(page.get_by_test_id("no-tokens")).to_be_visible()
    page.locator("#id_name").fill("laptopul meu")
    page.locator("input[name=scopes][value=play]").check()
    page.get_by_test_id("token-make").click()
    secret = page.get_by_test_id("new-token-secret").input_value()
    assert secret.startswith("sep_")
    expect(page.get_by_test_id("token-row")).to_contain_text("laptopul meu")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375, "nothing wider than the phone"
    page.screenshot(path=ARTIFACTS / "api-token-made-ro.png", full_page=True)

    answer = context.request.get(
        f"{live_server_url}/api/v1/me", headers={"Authorization": f"Bearer {secret}"}
    )
    assert answer.status == 200 and answer.json()["username"] == "ana"
    without = context.request.get(f"{live_server_url}/api/v1/me")  # the session cookie alone
    assert without.status == 401

    page.reload()
    assert secret not in page.content(), "a token is shown once"
    page.get_by_test_id("token-revoke").click()
    expect(page.get_by_test_id("token-row")).to_contain_text("revocat")
    revoked = context.request.get(
        f"{live_server_url}/api/v1/me", headers={"Authorization": f"Bearer {secret}"}
    )
    assert revoked.status == 401
    context.close()


def test_the_browsable_description_lists_every_endpoint(browser: Browser, live_server_url):
    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    refused: list[str] = []
    page.on(
        "console",
        lambda message: refused.append(message.text) if "Content Security" in message.text else None,
    )
    page.goto(f"{live_server_url}/api/v1/docs")
    expect(page.locator(".opblock").first).to_be_visible(timeout=20_000)
    assert page.locator(".opblock").count() >= 15
    expect(page.locator(".swagger-ui")).to_contain_text("/api/v1/bot/games/{match_id}/move")
    assert not refused, refused
    page.screenshot(path=ARTIFACTS / "api-docs-en.png")
    page.goto(f"{live_server_url}/api/")
    expect(page.get_by_test_id("api-guide")).to_contain_text("Write a bot")
    page.screenshot(path=ARTIFACTS / "api-guide-en.png", full_page=True)
    context.close()
