"""A player on a phone, in Romanian, downloads her data and closes her account from the account page;
the other player's match page then names her seat "un jucător șters". Real Chromium, Daphne and a
worker (which prepares the download)."""

import io
import json
import re
import zipfile

import pytest
from django.db import connection
from playwright.sync_api import Browser, expect

from accounts.models import User
from chat.models import ChatMessage, Room
from gameplay.models import Match
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import PASSWORD, make_user
from tests.history.helpers import play_out, seated_match

PHONE = {"width": 375, "height": 667}
SAID = "noroc-de-la-ana"


def played_match() -> Match:
    """Ana and Ion play a private Americana match to its end; Ana said something in its chat."""
    people = [make_user("ana"), make_user("ion")]
    try:
        match = play_out(seated_match("americana", people, {"players": 2}, private=True))
        ChatMessage.objects.create(
            table=match.table,
            match=match,
            move_index=1,
            room=Room.PLAYERS,
            author=people[0],
            text=SAID,
            shown=SAID,
        )
        return match
    finally:
        connection.close()  # this runs in a thread of its own: its connection ends with it


def erased_accounts() -> int:
    try:
        return User.objects.filter(erased_at__isnull=False).count()
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_player_downloads_her_data_and_closes_her_account_on_a_phone_in_romanian(
    browser: Browser, live_server_url: str
):
    match = off_loop(played_match)
    ana = browser.new_context(locale="ro-RO", viewport=PHONE, accept_downloads=True).new_page()
    log_in(ana, live_server_url, "ana")
    ana.get_by_role("button", name="RO").click()
    expect(ana.locator("html")).to_have_attribute("lang", "ro")

    ana.get_by_test_id("profile-link").click()
    ana.get_by_test_id("your-data-link").click()
    expect(ana.get_by_role("heading", name="Datele tale")).to_be_visible()
    ana.get_by_role("button", name="Pregătește-mi descărcarea").click()
    expect(ana.get_by_text("Datele tale sunt în pregătire.")).to_be_visible()
    link = ana.get_by_test_id("export-download")
    expect(link).to_be_visible(timeout=30_000)  # the page asks again until the worker is done
    expect(link).to_contain_text("Datele tale din")
    ana.screenshot(path=ARTIFACTS / "privacy-data-ro-phone.png", full_page=True)
    with ana.expect_download() as download:
        link.click()
    assert re.fullmatch(r"septica-data-ana-\d{4}-\d{2}-\d{2}\.zip", download.value.suggested_filename)
    with zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read())) as archive:
        data = json.loads(archive.read("data.json"))
        readme = archive.read("README.txt").decode()
    assert data["profile"]["username"] == "ana" and [m["id"] for m in data["matches"]] == [match.pk]
    assert [line["text"] for line in data["chat_messages"]] == [SAID]
    assert "Datele tale de pe Șeptică: ana" in readme

    ana.get_by_test_id("close-account-link").click()
    expect(ana.get_by_role("heading", name="Închide-ți contul")).to_be_visible()
    expect(ana.get_by_text("un jucător șters", exact=False).first).to_be_visible()
    ana.get_by_label("Parola ta").fill("nu-e-parola-mea")
    ana.get_by_label("Înțeleg că nu se mai poate anula.").check()
    ana.get_by_test_id("close-account-confirm").click()
    expect(ana.get_by_text("Aceasta nu e parola ta. Contul tău e încă deschis.")).to_be_visible()
    ana.get_by_label("Parola ta").fill(PASSWORD)
    ana.get_by_label("Înțeleg că nu se mai poate anula.").check()
    ana.screenshot(path=ARTIFACTS / "privacy-close-ro-phone.png", full_page=True)
    ana.get_by_test_id("close-account-confirm").click()
    expect(ana.get_by_text("Contul tău e închis și datele tale personale au fost șterse.")).to_be_visible()
    expect(ana.get_by_test_id("profile-link")).to_have_count(0)
    assert off_loop(erased_accounts) == 1

    ion = browser.new_context(locale="ro-RO", viewport=PHONE).new_page()
    log_in(ion, live_server_url, "ion")
    ion.get_by_role("button", name="RO").click()
    ion.goto(f"{live_server_url}/matches/{match.pk}/")
    seats = ion.get_by_test_id("match-seat")
    expect(seats.first).to_have_text("un jucător șters")
    expect(ion.get_by_test_id("deleted-player")).to_have_count(1)
    expect(ion.locator("main")).not_to_contain_text(SAID)
    expect(ion.locator("main")).not_to_contain_text("ana")
    ion.screenshot(path=ARTIFACTS / "privacy-deleted-player-ro-phone.png", full_page=True)
    ion.goto(f"{live_server_url}/privacy/")
    expect(
        ion.get_by_role("heading", name="Confidențialitate: ce păstrează site-ul despre tine")
    ).to_be_visible()
    ion.screenshot(path=ARTIFACTS / "privacy-page-ro-phone.png", full_page=True)
