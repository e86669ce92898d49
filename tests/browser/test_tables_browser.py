"""Two people in two browsers: a private table, an invitation, a bot, and the start."""

import pytest
from playwright.sync_api import Browser, expect

from tables.models import Table
from tests.browser.conftest import log_in
from tests.conftest import ARTIFACTS
from tests.factories import make_user


@pytest.mark.django_db(transaction=True)
def test_private_table_invitation_bot_and_start(browser: Browser, live_server_url: str):
    make_user("ana")
    make_user("ion")
    host = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844}).new_page()
    guest = browser.new_context(locale="ro-RO", viewport={"width": 390, "height": 844}).new_page()

    log_in(host, live_server_url, "ana")
    host.goto(live_server_url + "/tables/new/")
    host.get_by_label("Șeptică Americană", exact=True).check()
    expect(host.get_by_label("Who leads a new deal")).to_be_hidden()
    host.get_by_label("Players").first.select_option("3")
    host.get_by_label("Private table").check()
    host.get_by_label("Turn clock").select_option("0")
    host.screenshot(path=ARTIFACTS / "table-create.png", full_page=True)
    host.get_by_role("button", name="Create the table").click()
    expect(host.get_by_role("heading", name="Șeptică Americană")).to_be_visible()
    invite_link = host.locator("#invite-link").input_value()
    table = Table.objects.get()
    assert table.is_private and table.options["players"] == 3 and table.turn_clock == 0

    log_in(guest, live_server_url, "ion")
    guest.goto(invite_link)
    expect(guest.get_by_test_id("seat-1")).to_contain_text("ion")
    # The host's page learns of the guest over the websocket, without a reload.
    expect(host.get_by_test_id("seat-1")).to_contain_text("ion")

    host.get_by_test_id("seat-2").get_by_label("Bot level").select_option("hard")
    host.get_by_test_id("seat-2").get_by_role("button", name="Add a bot").click()
    # The match starts: the host lands on the table, and the guest's waiting room reloads into it.
    expect(host.get_by_test_id("play")).to_be_visible(timeout=15_000)
    expect(guest.get_by_test_id("play")).to_be_visible(timeout=15_000)
    expect(guest.get_by_test_id("opponent-2").locator(".badge-bot")).to_have_text("nivelul botului: greu")
    expect(host.get_by_test_id("opponent-1")).to_contain_text("ion")
    host.screenshot(path=ARTIFACTS / "table-started-host.png", full_page=True)
    guest.screenshot(path=ARTIFACTS / "table-started-guest-ro.png", full_page=True)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert table.matches.filter(status="playing").count() == 1
