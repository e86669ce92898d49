"""A newcomer in a real browser: register, log in, switch to Romanian, log out."""

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.conftest import ARTIFACTS

PASSWORD = "green-felt-table-42"


@pytest.mark.django_db(transaction=True)
def test_register_login_switch_language_logout(page: Page, live_server_url: str):
    page.goto(live_server_url + "/")
    expect(page.get_by_role("heading", name="Play Șeptică online")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "home-en.png", full_page=True)

    page.get_by_role("link", name="Register").first.click()
    page.get_by_label("Username").fill("maria")
    page.get_by_label("Email").fill("maria@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Register").click()
    expect(page.get_by_text("Welcome, maria! Your account is ready.")).to_be_visible()
    assert User.objects.filter(username="maria").exists()

    page.get_by_role("button", name="Log out").click()
    page.get_by_role("link", name="Log in").first.click()
    page.get_by_label("Username").fill("maria")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_test_id("profile-link")).to_have_text("maria")

    page.get_by_role("button", name="RO").click()
    expect(page.get_by_role("heading", name="Joacă șeptică online")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "ro")
    page.screenshot(path=ARTIFACTS / "home-ro.png", full_page=True)

    page.get_by_role("button", name="Ieșire").click()
    expect(page.get_by_role("navigation").get_by_role("link", name="Intră în cont")).to_be_visible()
    expect(page.get_by_test_id("profile-link")).to_have_count(0)


@pytest.mark.django_db(transaction=True)
def test_register_shows_clear_errors_in_the_browser(page: Page, live_server_url: str):
    page.goto(live_server_url + "/accounts/register/")
    page.get_by_label("Username").fill("x")
    page.get_by_label("Email").fill("not-an-email")
    page.get_by_label("Password", exact=True).fill("123")
    page.get_by_label("Password confirmation").fill("123")
    page.get_by_role("button", name="Register").click()
    expect(page.get_by_text("Enter a valid email address.")).to_be_visible()
    expect(page.get_by_text("This password is too short.", exact=False)).to_be_visible()
    assert not User.objects.exists()
