"""The table chat in two browsers: quick phrases in each reader's language, typed text intact, the
unread count, a drawer that never covers the hand on a phone, keys that stay the chat's while typing,
and typed attacks that stay text."""

from collections.abc import Iterator

import pytest
from django.utils import translation
from playwright.sync_api import Browser, Page, expect

from gameplay import services as gameplay_services
from tables import services as table_services
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS, site_env, site_of_its_own
from tests.factories import make_user

PHONE = {"width": 375, "height": 667}
DIACRITICS = "Mulțumesc, ședința e grea"


@pytest.fixture(scope="module")
def chat_server_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """Daphne on the test database where every account may type (no finished matches needed) and the
    burst of messages is wide enough for a test to send a dozen in a row."""
    env = site_env(CHAT_FREE_TEXT_MATCHES="0", CHAT_MESSAGES_PER_10_SECONDS="200")
    with site_of_its_own("chat-server", env) as url:
        yield url


def seated_pair():
    users = [make_user("ana"), make_user("ion")]
    table = gameplay_services.table_create(
        host=users[0], game="americana", options={"players": 2}, turn_clock=0, is_private=True
    )
    table_services.seat_take(table_id=table.pk, user=users[1], token=table.invite_token)
    return table, users


def at_the_table(browser: Browser, base: str, table, username: str, locale: str) -> Page:
    page = browser.new_context(locale=locale, viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    log_in(page, base, username)
    page.goto(f"{base}/tables/{table.pk}/")
    expect(page.locator(".play[data-live]")).to_be_attached()
    return page


def romanian(words: str) -> str:
    with translation.override("ro"):
        return translation.gettext(words)


def box(page: Page, selector: str) -> dict:
    found = page.locator(selector).bounding_box()
    assert found, f"{selector} is not on show"
    return found


def assert_clear_of_the_hand(page: Page, size: dict = PHONE) -> None:
    panel, hand = box(page, "#chat-panel"), box(page, "#hand-area")
    overlap_x = min(panel["x"] + panel["width"], hand["x"] + hand["width"]) - max(panel["x"], hand["x"])
    overlap_y = min(panel["y"] + panel["height"], hand["y"] + hand["height"]) - max(panel["y"], hand["y"])
    assert overlap_x <= 0 or overlap_y <= 0, f"the chat {panel} covers the hand {hand}"
    assert panel["height"] >= 200, f"the chat is too small to use: {panel}"
    assert panel["y"] >= 0 and panel["x"] >= 0 and panel["x"] + panel["width"] <= size["width"]
    assert panel["y"] + panel["height"] <= size["height"]


def lines(page: Page, room: str = "players"):
    return page.locator(f"#chat-log-{room} .chat-line")


@pytest.mark.django_db(transaction=True)
def test_two_people_chat_each_in_their_own_language(browser: Browser, chat_server_url: str):
    table, _users = off_loop(seated_pair)
    ana = at_the_table(browser, chat_server_url, table, "ana", "en-GB")
    ion = at_the_table(browser, chat_server_url, table, "ion", "ro-RO")
    for page, language in ((ana, "en"), (ion, "ro")):
        expect(page.get_by_test_id("chat-panel")).to_be_hidden()
        page.screenshot(path=ARTIFACTS / f"chat-{language}-empty-closed.png")

    # Ana opens the drawer: it stops above her hand, and a quick phrase goes to both.
    ana.get_by_test_id("chat-toggle").click()
    expect(ana.get_by_test_id("chat-toggle")).to_have_attribute("aria-expanded", "true")
    assert_clear_of_the_hand(ana)
    ana.get_by_test_id("phrase-gg").click()
    expect(lines(ana)).to_have_count(1)
    expect(lines(ana).first.locator(".chat-text")).to_have_text("Good game!")
    expect(lines(ion)).to_have_count(1)
    ion_line = lines(ion).first.locator(".chat-text")
    expect(ion_line).to_have_attribute("data-phrase", "gg")
    if romanian("Good game!") != "Good game!":  # the Romanian catalogue has the phrase
        expect(ion_line).to_have_text("Joc bun!")
    # Ion's drawer is shut: the line is counted, with words for a screen reader, and read out once.
    unread = ion.get_by_test_id("chat-unread")
    expect(unread).to_be_visible()
    expect(unread.locator(".chat-unread-count")).to_have_text("1")
    expect(unread.locator(".chat-unread-label")).not_to_have_text("")
    expect(ion.get_by_test_id("chat-announcer")).to_contain_text("ana:")
    ion.screenshot(path=ARTIFACTS / "chat-ro-unread.png")
    # Ana's own line is not news to her.
    expect(ana.get_by_test_id("chat-announcer")).to_have_text("")

    # Ion opens it (the count goes), and types with diacritics; Enter sends, the box empties and keeps
    # the focus for the next line.
    ion.get_by_test_id("chat-toggle").click()
    expect(unread).to_be_hidden()
    assert_clear_of_the_hand(ion)
    typed = ion.get_by_test_id("chat-text")
    typed.click()
    typed.fill(DIACRITICS)
    typed.press("Enter")
    expect(lines(ana).nth(1).locator(".chat-text")).to_have_text(DIACRITICS)
    expect(lines(ana).nth(1).locator(".chat-author")).to_have_text("ion")
    expect(lines(ion).nth(1).locator(".chat-text")).to_have_text(DIACRITICS)
    expect(ion.get_by_test_id("chat-text")).to_have_value("")
    expect(ion.get_by_test_id("chat-text")).to_be_focused()
    expect(ana.get_by_test_id("chat-announcer")).to_have_text(f"ion: {DIACRITICS}")

    # Said again at once: refused, and what was typed stays there with the reason.
    typed = ion.get_by_test_id("chat-text")
    typed.fill(DIACRITICS)
    typed.press("Enter")
    expect(ion.get_by_test_id("chat-notice")).not_to_have_text("")
    expect(ion.get_by_test_id("chat-text")).to_have_value(DIACRITICS)
    expect(lines(ana)).to_have_count(2)
    typed.fill("")

    # A phrase sent while something is typed keeps the typing.
    typed.fill("pe curând")
    ion.get_by_test_id("phrase-thanks").click()
    expect(lines(ana)).to_have_count(3)
    expect(ion.get_by_test_id("chat-text")).to_have_value("pe curând")
    expect(ion.get_by_test_id("chat-notice")).to_have_text("")
    ion.get_by_test_id("chat-text").fill("")

    # Ana shuts her drawer with Escape from the message box; lines said meanwhile are counted.
    ana.get_by_test_id("chat-text").click()
    ana.keyboard.press("Escape")
    expect(ana.get_by_test_id("chat-panel")).to_be_hidden()
    expect(ana.get_by_test_id("chat-toggle")).to_be_focused()
    for words in ("unu", "doi"):
        ion.get_by_test_id("chat-text").fill(words)
        ion.get_by_test_id("chat-text").press("Enter")
        expect(lines(ion).last.locator(".chat-text")).to_have_text(words)
    expect(ana.get_by_test_id("chat-unread").locator(".chat-unread-count")).to_have_text("2")
    expect(ana.get_by_test_id("chat-unread").locator(".chat-unread-label")).to_have_text("Unread messages: 2")

    # C opens it (the focus in the message box), and while typing the table's keys stay quiet:
    # S would open the scores, D would draw.
    ana.evaluate("document.activeElement.blur()")
    ana.keyboard.press("c")
    expect(ana.get_by_test_id("chat-panel")).to_be_visible()
    expect(ana.get_by_test_id("chat-text")).to_be_focused()
    expect(ana.get_by_test_id("chat-unread")).to_be_hidden()
    version = ana.locator("input[name=version]").input_value()
    ana.keyboard.type("sdt S D T")
    expect(ana.get_by_test_id("chat-text")).to_have_value("sdt S D T")
    ana.wait_for_timeout(300)
    assert ana.get_by_test_id("scores").get_attribute("open") is None
    assert ana.locator("input[name=version]").input_value() == version
    ana.get_by_test_id("chat-text").fill("")

    # Spectators' chat: hidden for the seated until they ask, and remembered.
    show = ana.get_by_test_id("chat-show-watchers")
    expect(show).not_to_be_checked()
    expect(ana.get_by_test_id("chat-log-watchers")).to_be_hidden()
    show.check()
    expect(ana.get_by_test_id("chat-log-watchers")).to_be_attached()
    expect(ana.locator(".chat-watchers")).to_be_visible()
    ana.reload()
    expect(ana.locator(".play[data-live]")).to_be_attached()
    ana.get_by_test_id("chat-toggle").click()
    expect(ana.get_by_test_id("chat-show-watchers")).to_be_checked()
    expect(ana.locator(".chat-watchers")).to_be_visible()
    ana.get_by_test_id("chat-show-watchers").uncheck()
    expect(ana.locator(".chat-watchers")).to_be_hidden()
    # The reload brought the lines back whole: none of them is read out again.
    expect(ana.get_by_test_id("chat-announcer")).to_have_text("")
    expect(lines(ana)).to_have_count(5)

    # The phone's screenshots, both languages, shut and open; the open drawer still clears the hand
    # (however the hand has grown).
    # A phone on its side (the hand on the right) and a large screen (a side panel over the log).
    for size, name in (
        ({"width": 667, "height": 375}, "landscape"),
        ({"width": 1280, "height": 800}, "desktop"),
    ):
        ion.set_viewport_size(size)
        expect(ion.get_by_test_id("chat-panel")).to_be_visible()
        ion.wait_for_timeout(300)
        assert_clear_of_the_hand(ion, size)
        ion.screenshot(path=ARTIFACTS / f"chat-ro-{name}-open.png")
    ion.set_viewport_size(PHONE)

    for page, language in ((ana, "en"), (ion, "ro")):
        page.get_by_test_id("chat-text").blur()
        if page.get_by_test_id("chat-panel").is_visible():
            page.get_by_test_id("chat-toggle").click()
        expect(page.get_by_test_id("chat-panel")).to_be_hidden()
        page.screenshot(path=ARTIFACTS / f"chat-{language}-closed.png")
        page.get_by_test_id("chat-toggle").click()
        expect(page.get_by_test_id("chat-panel")).to_be_visible()
        assert_clear_of_the_hand(page)
        page.wait_for_timeout(250)  # the panel's short slide in
        page.screenshot(path=ARTIFACTS / f"chat-{language}-open.png")
        page.context.close()


PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg/onload=alert(1)>",
    "javascript:alert(document.cookie)",
    '"><script>alert(String.fromCharCode(88,83,83))</script>',
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;img src=x onerror=&#97;lert(1)&#62;",
    "<iframe src=\"javascript:alert('XSS');\"></iframe>",
    '<a href="javascript:alert(1)">click me</a>',
    "<div style=\"width: expression(alert('XSS'));\">x</div>",
    "{{7*7}} ${7*7} {% debug %} <%= 7*7 %>",
    "<IMG SRC=JaVaScRiPt:alert('XSS')>",
    "<body onload=alert('XSS')>",
    "<input autofocus onfocus=alert(1)>",
    "<details open ontoggle=alert(1)>",
    "';alert(String.fromCharCode(88,83,83))//\\';alert(1)//--></SCRIPT>\">'><SCRIPT>alert(1)</SCRIPT>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>",
    "<scr<script>ipt>alert(1)</scr</script>ipt> " + "<b onmouseover=alert(1)>long</b> " * 12,
]
KNOWN_PARTS = {"chat-author", "chat-text", "chat-line-menu"}


@pytest.mark.django_db(transaction=True)
def test_a_line_the_database_fails_keeps_what_was_typed_and_says_try_again(
    browser: Browser, chat_server_url: str, failing_inserts
):
    table, _users = off_loop(seated_pair)
    ion = at_the_table(browser, chat_server_url, table, "ion", "ro-RO")
    ion.get_by_test_id("chat-toggle").click()
    off_loop(failing_inserts.start, "chat_chatmessage")
    typed = ion.get_by_test_id("chat-text")
    typed.fill(DIACRITICS)
    typed.press("Enter")
    expect(ion.get_by_test_id("chat-notice")).to_have_text(
        romanian("The server could not do that just now: try again.")
    )
    expect(typed).to_have_value(DIACRITICS)
    expect(lines(ion)).to_have_count(0)
    ion.screenshot(path=ARTIFACTS / "chat-ro-not-sent.png", animations="disabled")
    # The same socket, once the database takes lines again: the same words go.
    off_loop(failing_inserts.stop)
    typed.press("Enter")
    expect(lines(ion)).to_have_count(1)
    expect(lines(ion).first.locator(".chat-text")).to_have_text(DIACRITICS)
    expect(typed).to_have_value("")
    expect(ion.get_by_test_id("chat-notice")).to_have_text("")


@pytest.mark.django_db(transaction=True)
def test_typed_attacks_show_as_typed_and_never_run(browser: Browser, chat_server_url: str):
    table, _users = off_loop(seated_pair)
    ana = at_the_table(browser, chat_server_url, table, "ana", "en-GB")
    ion = at_the_table(browser, chat_server_url, table, "ion", "ro-RO")
    dialogs: list[str] = []
    for page in (ana, ion):
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    ion.get_by_test_id("chat-toggle").click()
    ana.get_by_test_id("chat-toggle").click()
    typed = ana.get_by_test_id("chat-text")
    for count, payload in enumerate(PAYLOADS, start=1):
        typed.fill(payload)
        typed.press("Enter")
        expect(lines(ion)).to_have_count(count)
        expect(ana.get_by_test_id("chat-text")).to_have_value("")
    ion.wait_for_timeout(500)  # time for anything injected to fire
    assert not dialogs, f"a payload ran: {dialogs}"
    assert len(PAYLOADS[-1]) > 200
    for page in (ion, ana):
        shown = lines(page).evaluate_all(
            """lines => lines.map(line => ({
                parts: [...line.children].map(child => child.className),
                inText: line.querySelector('.chat-text').children.length,
                text: line.querySelector('.chat-text').textContent,
            }))"""
        )
        for payload, line in zip(PAYLOADS, shown, strict=True):
            assert set(line["parts"]) <= KNOWN_PARTS, line
            assert line["inText"] == 0, line
            assert line["text"] == payload[:200]
        injected = page.locator(
            "#chat script, #chat img, #chat iframe, #chat-panel svg, #chat [onerror], #chat [onload], "
            "#chat a[href^='javascript' i], #chat math, #chat style, #chat body, "
            "#chat [ontoggle], #chat [onfocus]"
        )
        expect(injected).to_have_count(0)
    for page in (ana, ion):
        page.context.close()


def waiting_table():
    ana = make_user("ana")
    return gameplay_services.table_create(
        host=ana, game="classic", options={"players": 3}, turn_clock=0, is_private=True
    )


@pytest.mark.django_db(transaction=True)
def test_the_waiting_room_has_the_chat_too(browser: Browser, chat_server_url: str):
    table = off_loop(waiting_table)
    page = browser.new_context(locale="en-GB", viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    log_in(page, chat_server_url, "ana")
    page.goto(f"{chat_server_url}/tables/{table.pk}/")
    page.get_by_test_id("chat-toggle").click()
    page.get_by_test_id("phrase-hello").click()
    expect(lines(page).first.locator(".chat-text")).to_have_text("Hello!")
    page.get_by_test_id("chat-text").fill(DIACRITICS)
    page.get_by_test_id("chat-text").press("Enter")
    expect(lines(page).nth(1).locator(".chat-text")).to_have_text(DIACRITICS)
    expect(page.get_by_test_id("chat-text")).to_be_focused()
    page.get_by_test_id("chat-panel").scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / "chat-en-waiting-room-open.png", full_page=True)
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("chat-panel")).to_be_hidden()
    page.context.close()


@pytest.mark.django_db(transaction=True)
def test_a_player_who_hides_the_chat_sees_neither_it_nor_its_count(browser: Browser, chat_server_url: str):
    table, _users = off_loop(seated_pair)
    ana = at_the_table(browser, chat_server_url, table, "ana", "en-GB")
    ion = at_the_table(browser, chat_server_url, table, "ion", "en-GB")
    ana.get_by_test_id("settings").locator("summary").click()
    ana.get_by_test_id("setting-no-chat").check()
    expect(ana.get_by_test_id("chat")).to_be_hidden()
    ion.get_by_test_id("chat-toggle").click()
    ion.get_by_test_id("phrase-luck").click()
    expect(lines(ion).first.locator(".chat-text")).to_have_text("Good luck!")
    expect(ana.get_by_test_id("chat")).to_be_hidden()
    ana.reload()  # kept in this browser
    expect(ana.locator(".play[data-live]")).to_be_attached()
    expect(ana.get_by_test_id("chat")).to_be_hidden()
    ana.get_by_test_id("settings").locator("summary").click()
    ana.get_by_test_id("setting-no-chat").uncheck()
    expect(ana.get_by_test_id("chat-toggle")).to_be_visible()
    for page in (ana, ion):
        page.context.close()
