"""The invitation link in a waiting room: Copy puts it on the clipboard; on a phone, Share hands it
to the system's Share sheet, and where that sheet fails the link is copied instead."""

import pytest
from django.db import connection
from playwright.sync_api import Browser, Page, expect

from gameplay import services as gameplay_services
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import make_user

# A stand-in for the system's Share sheet: it records what it was handed, or fails as a browser
# without a usable sheet does.
SHARE_SHEET = """
window.shared = [];
document.addEventListener("DOMContentLoaded", () => {
    window.firstRoom = document.getElementById("table-room");
});
navigator.share = async (data) => {
    if (window.shareFails) throw new DOMException("No share target", "NotAllowedError");
    window.shared.push(data);
};
"""


def settled(page: Page) -> None:
    """Wait for the websocket's first update, which renders the room afresh (the page keeps its first room in
    ``window.firstRoom``)."""
    page.wait_for_function("() => document.getElementById('table-room') !== window.firstRoom")


def private_table():
    try:
        table = gameplay_services.table_create(
            host=make_user("ana"), game="americana", options={"players": 2}, turn_clock=0, is_private=True
        )
        return table.pk, table.invite_token
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_copy_and_share_the_invitation(browser: Browser, live_server_url: str):
    table_id, token = off_loop(private_table)
    context = browser.new_context(
        locale="en-GB", viewport={"width": 375, "height": 667}, has_touch=True, is_mobile=True
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server_url)
    context.add_init_script(SHARE_SHEET)
    page = context.new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/tables/{table_id}/")
    settled(page)
    link = f"{live_server_url}/tables/join/{token}/"
    expect(page.locator("#invite-link")).to_have_value(link)

    page.get_by_test_id("invite-copy").click()
    expect(page.get_by_test_id("invite-said")).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == link

    page.evaluate("navigator.clipboard.writeText('')")
    page.get_by_test_id("invite-share").click()
    page.wait_for_function("() => window.shared.length === 1")
    shared = page.evaluate("window.shared[0]")
    assert shared["url"] == link and "Șeptică Americană" in shared["text"]
    page.screenshot(path=ARTIFACTS / "invite-share-375x667-en.png", full_page=True)

    page.evaluate("window.shareFails = true")
    page.get_by_test_id("invite-share").click()
    expect(page.get_by_test_id("invite-said")).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == link
    context.close()


@pytest.mark.django_db(transaction=True)
def test_without_a_share_sheet_only_copy_is_offered(browser: Browser, live_server_url: str):
    table_id, _token = off_loop(private_table)
    page = browser.new_context(locale="ro-RO", viewport={"width": 1280, "height": 800}).new_page()
    page.add_init_script("delete Navigator.prototype.share")
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/tables/{table_id}/")
    expect(page.get_by_test_id("invite-copy")).to_have_text("Copiază linkul")
    expect(page.get_by_test_id("invite-share")).to_be_hidden()
