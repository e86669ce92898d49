"""A reported insult, from the table to the moderators' queue and back, on phones: a player reports
another's line, a moderator suspends its author for an hour through the admin's pages, the author's
next message is refused with the moderator's reason and the hour it ends (in the author's language and
the site's time), and once the match is over its page still shows the players what was said."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import formats, timezone, translation
from playwright.sync_api import Browser, WebSocketRoute, expect

from chat.models import Report, Suspension
from gameplay.models import Match
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_chat_browser import PHONE, at_the_table, chat_server_url, lines, seated_pair
from tests.conftest import ARTIFACTS
from tests.factories import PASSWORD, make_moderator
from tests.history.helpers import play_out

__all__ = ["chat_server_url"]  # the module's Daphne (every account may type), used here as a fixture

INSULT = "ești un ticălos și un trișor"
REASON = "Insulte la masă, a doua oară"
LATER = "încă ceva de zis"


def at_the_table_held(browser: Browser, base: str, table, username: str, locale: str):
    """A phone at the table whose socket's news from the server can be held back (a flaky network
    that loses what the server pushes): what was held is kept in the list returned."""
    page = browser.new_context(locale=locale, viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    network = {"hold": False, "held": []}

    def through_the_network(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def to_the_page(message) -> None:
            if network["hold"]:
                network["held"].append(message)
            else:
                socket.send(message)

        server.on_message(to_the_page)

    page.route_web_socket(re.compile(r"/ws/tables/"), through_the_network)
    log_in(page, base, username)
    page.goto(f"{base}/tables/{table.pk}/")
    expect(page.locator(".play[data-live]")).to_be_attached()
    return page, network


def in_romanian_time(moment) -> str:
    """``moment`` as the chat writes a suspension's end to a Romanian reader: the site's time zone,
    Django's DATETIME_FORMAT for Romanian."""
    with translation.override("ro"):
        return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


@pytest.mark.django_db(transaction=True)
def test_a_reported_insult_is_suspended_from_the_admin_and_the_match_keeps_its_chat(
    browser: Browser, chat_server_url: str
):
    base = chat_server_url
    table, (_ana, ion) = off_loop(seated_pair)
    match = Match.objects.get(table=table)
    off_loop(make_moderator)
    ana = at_the_table(browser, base, table, "ana", "en-GB")
    ion_page, network = at_the_table_held(browser, base, table, "ion", "ro-RO")
    for page in (ana, ion_page):
        page.get_by_test_id("chat-toggle").click()
        expect(page.get_by_test_id("chat-panel")).to_be_visible()

    # Ana greets; Ion answers with an insult, typed.
    ana.get_by_test_id("phrase-hello").click()
    expect(lines(ion_page)).to_have_count(1)
    expect(lines(ion_page).first.locator(".chat-text")).to_have_attribute("data-phrase", "hello")
    typed = ion_page.get_by_test_id("chat-text")
    typed.fill(INSULT)
    typed.press("Enter")
    insult = lines(ana).filter(has_text=INSULT)
    expect(insult).to_have_count(1)
    expect(insult.locator(".chat-author")).to_have_text("ion")
    expect(ion_page.get_by_test_id("chat-text")).to_have_value("")
    expect(lines(ion_page).filter(has_text=INSULT)).to_have_count(1)

    # Ana opens the line's menu and reports it as abuse: thanked, and the report is in the queue.
    insult.locator(".chat-line-menu summary").click()
    insult.locator("select[name=reason]").select_option("abuse")
    insult.get_by_test_id("chat-report").click()
    expect(ana.get_by_test_id("chat-notice")).to_have_text("Thank you: a moderator will read it.")
    ana.screenshot(path=ARTIFACTS / "chat-moderation-en-reported.png")
    report = Report.objects.get()
    assert (report.reporter.username, report.reason, report.message.text) == ("ana", "abuse", INSULT)

    # Ion's phone loses what the server pushes from now on (his drawer keeps its message box).
    network["hold"] = True

    # The moderator, in a browser of their own, reads the queue and the report, and suspends Ion for
    # an hour, with a reason, through the admin's own form.
    admin = browser.new_context(locale="en-GB").new_page()
    admin.goto(f"{base}/admin/login/?next=/admin/chat/report/")
    admin.locator("#id_username").fill("mod")
    admin.locator("#id_password").fill(PASSWORD)
    admin.locator("#login-form [type=submit]").click()
    expect(admin).to_have_url(re.compile(r"/admin/chat/report/$"))
    row = admin.locator("#result_list tbody tr").filter(has_text=INSULT)
    expect(row).to_have_count(1)
    expect(row).to_contain_text("ana")
    row.locator("a").first.click()
    expect(admin).to_have_url(re.compile(rf"/admin/chat/report/{report.pk}/change/$"))
    expect(admin.locator(".field-message_text .readonly")).to_have_text(INSULT)
    expect(admin.locator(".field-context mark")).to_have_text(INSULT)
    expect(admin.locator(".field-author .readonly")).to_have_text("ion")
    admin.locator("#id_decision").select_option("suspend_1h")
    admin.locator("#id_reason").fill(REASON)
    admin.screenshot(path=ARTIFACTS / "chat-moderation-admin-decision.png", full_page=True)
    before = timezone.now()
    admin.locator("input[name=_save]").click()
    expect(admin).to_have_url(re.compile(r"/admin/chat/report/$"))
    expect(admin.locator(".messagelist .success")).to_contain_text("Decision applied")
    after = timezone.now()
    suspension = Suspension.objects.get(user=ion)
    assert suspension.reason == REASON
    assert before + timedelta(hours=1) <= suspension.until <= after + timedelta(hours=1)
    report.refresh_from_db()
    assert report.handled_at is not None and report.handled_by.username == "mod"
    admin.context.close()

    # The server told Ion's pages (his new composer: suspended), which his phone lost on the way.
    for _ in range(100):
        if any("chat-suspended" in str(message) for message in network["held"]):
            break
        ion_page.wait_for_timeout(100)
    else:
        pytest.fail(f"Ion's pages were never told of the suspension: {network['held']}")
    network["hold"] = False

    # His next message is refused, in his language, with the moderator's reason and the hour it ends
    # (now + 1 h, in the site's time, as Django writes it in Romanian); nothing reaches Ana.
    until = in_romanian_time(suspension.until)
    hour = timezone.localtime(before + timedelta(hours=1))
    assert f"{hour:%H}:" in until or f"{hour.hour}:" in until
    typed = ion_page.get_by_test_id("chat-text")
    typed.fill(LATER)
    typed.press("Enter")
    notice = ion_page.get_by_test_id("chat-notice")
    expect(notice).to_contain_text(REASON)
    expect(notice).to_contain_text(until)
    expect(notice).to_contain_text(re.compile(rf"\b{timezone.localtime(suspension.until):%H:%M}\b"))
    expect(ion_page.get_by_test_id("chat-text")).to_have_value(LATER)
    ion_page.screenshot(path=ARTIFACTS / "chat-moderation-ro-refused.png")
    ana.wait_for_timeout(300)
    expect(lines(ana)).to_have_count(2)

    # Reloaded, his drawer says he is suspended, why and until when, and has no message box.
    ion_page.reload()
    expect(ion_page.locator(".play[data-live]")).to_be_attached()
    ion_page.get_by_test_id("chat-toggle").click()
    suspended = ion_page.get_by_test_id("chat-suspended")
    expect(suspended).to_contain_text(REASON)
    expect(suspended).to_contain_text(until)
    expect(ion_page.get_by_test_id("chat-text")).to_have_count(0)
    ion_page.screenshot(path=ARTIFACTS / "chat-moderation-ro-suspended.png")

    # The match is played to its end through the game's services; its page shows Ana the chat.
    finished = off_loop(play_out, match)
    assert finished.status == Match.Status.FINISHED
    ana.goto(base + reverse("history:match", args=[match.pk]))
    chat = ana.get_by_test_id("match-chat")
    expect(chat).to_be_visible()
    said = chat.get_by_test_id("match-chat-line")
    expect(said).to_have_count(2)
    expect(said.nth(0)).to_contain_text("Hello!")
    expect(said.nth(1)).to_contain_text("ion")
    expect(said.nth(1)).to_contain_text(INSULT)
    expect(chat).not_to_contain_text(LATER)
    ana.screenshot(path=ARTIFACTS / "chat-moderation-en-match-page.png", full_page=True)
    for page in (ana, ion_page):
        page.context.close()
