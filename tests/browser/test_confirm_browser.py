"""A newcomer on a Romanian phone: registers, is told the match would be casual and gets quick phrases
only, opens the link mailed to her (through a real SMTP server), and the same table is then rated."""

from collections.abc import Iterator

import pytest
from django.utils import translation
from playwright.sync_api import Browser, expect

from accounts.models import User
from gameplay import services as gameplay_services
from tables.models import Table
from tests.browser.conftest import off_loop
from tests.conftest import (
    ARTIFACTS,
    TEST_QUEUE,
    site_env,
    site_of_its_own,
)
from tests.factories import PASSWORD, make_user
from tests.mailbox import Mailbox, link_in

PHONE = {"width": 375, "height": 667}


def romanian(words: str) -> str:
    with translation.override("ro"):
        return translation.gettext(words)


@pytest.fixture
def mailing_site(mailbox: Mailbox) -> Iterator[str]:
    """Daphne and a Celery worker of their own (their own queue, so no other test's worker takes the
    mail) that send mail through the test's SMTP server; an account is old enough for rated play as
    soon as its email is confirmed, and types in chat from its first match."""
    env = site_env(
        CELERY_QUEUE=f"{TEST_QUEUE}-mail",
        RATED_MIN_ACCOUNT_AGE_SECONDS="0",
        CHAT_FREE_TEXT_MATCHES="0",
        **mailbox.env(),
    )
    with site_of_its_own("confirm-server", env, worker=True) as url:
        yield url


@pytest.mark.django_db(transaction=True)
def test_a_newcomer_plays_casual_until_the_mailed_link_confirms_her_then_rated(
    browser: Browser, mailing_site: str, mailbox: Mailbox
):
    base = mailing_site
    host = make_user("gazda")
    table = off_loop(
        gameplay_services.table_create,
        host=host,
        game="americana",
        options={"players": 2},
        turn_clock=45,
        is_private=False,
        rated=True,
    )
    page = browser.new_context(locale="ro-RO", viewport=PHONE, has_touch=True, is_mobile=True).new_page()

    page.goto(base + "/accounts/register/")
    page.locator("#id_username").fill("maria")
    page.locator("#id_email").fill("maria@example.com")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_test_id("profile-link")).to_have_text("maria")
    assert User.objects.get(username="maria").email_confirmed_at is None

    # Before the link: the waiting room says her seat would make the match casual, and the chat
    # offers her quick phrases only, pointing to the profile.
    page.goto(f"{base}/tables/{table.pk}/")
    expect(page.get_by_test_id("casual-if-seated")).to_be_visible()
    expect(page.get_by_test_id("chat-unconfirmed")).to_be_attached()
    expect(page.get_by_test_id("chat-text")).to_have_count(0)
    page.screenshot(path=ARTIFACTS / "confirm-before-ro.png", full_page=True)
    page.goto(base + "/accounts/profile/")
    expect(page.get_by_test_id("email-send-again")).to_be_visible()

    (message,) = mailbox.wait_for(1)
    assert message["To"] == "maria@example.com"
    assert message["Subject"] == romanian("Confirm your Șeptică email address")
    page.goto(link_in(message, "/accounts/confirm/"))
    expect(page.get_by_test_id("email-confirmed")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "confirm-done-ro.png", full_page=True)

    # After it: the same table no longer warns, the chat takes typed text, and her seat starts a
    # rated match.
    page.goto(f"{base}/tables/{table.pk}/")
    expect(page.get_by_test_id("chat-text")).to_be_attached()
    expect(page.get_by_test_id("casual-if-seated")).to_have_count(0)
    page.get_by_test_id("seat-1").locator("button[type=submit]").click()
    expect(page.locator(".play[data-live]")).to_be_attached()
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.PLAYING
    assert table.is_rated and table.casual_because == ""
    page.goto(base + "/")
    options = page.locator(f"#table-{table.pk} .table-card-options").first
    expect(options).to_contain_text(romanian("rated"))
    page.screenshot(path=ARTIFACTS / "confirm-rated-ro.png", full_page=True)
