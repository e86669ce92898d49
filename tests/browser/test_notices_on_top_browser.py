"""On-site notices lie over every layer of every page. A person has the site open on a phone and a
desktop; a friend request sent through the service while both show one kind of page (the home page,
the lobby, the pool's waiting page, a tournament's page, the profile, a table in play with its Scores
and chat open, a finished table under a match-over sheet of many rounds) brings its toast to both,
its Accept the topmost thing at its centre; the bell is never under a page's own layers either. Over
the match-over sheet, Accept makes the two friends, on either screen.
Screenshots: test-artifacts/notices-on-top-*.png."""

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.db import connection
from playwright.sync_api import Browser, Locator, Page, expect

from social import services as social_services
from social.models import Friendship
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_table_craft import live
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.history.helpers import play_out, seated_match
from tests.tournaments.conftest import tournament

PHONE = {"width": 375, "height": 667}
DESKTOP = {"width": 1280, "height": 800}
MANY_ROUNDS = 10
"""At least this many on the match-over sheet (Americana to 301 between easy bots: 15 to 25)."""

SOCKETS = """
window.sockets = [];
window.WebSocket = class extends window.WebSocket {
    constructor(...args) { super(...args); window.sockets.push(this); }
};
"""
"""Every websocket a page opens, kept where the test can see whether it is open."""
SITE_SOCKET_OPEN = """() => window.sockets.some(
    (socket) => socket.url.includes("/ws/me/") && socket.readyState === WebSocket.OPEN
)"""

TOPMOST = """element => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return hit !== null && element.contains(hit);
}"""
"""Whether ``element`` is what a tap at its centre reaches (nothing of the page lies over it)."""


@dataclass
class Screen:
    """One of the person's open browsers."""

    name: str
    page: Page

    def open(self, url: str, ready: Callable[[Page], None]) -> None:
        """Go to ``url`` and wait until the page is ``ready`` and its site socket listens (it joins
        the person's news before it opens)."""
        self.page.goto(url)
        ready(self.page)
        self.page.wait_for_function(SITE_SOCKET_OPEN)

    def toast_from(self, sender: str) -> Locator:
        toast = self.page.locator("#notice-toasts").get_by_test_id("notice").filter(has_text=sender)
        expect(toast).to_contain_text(f"{sender} would like to be your friend.", timeout=10_000)
        return toast


def person(username: str):
    from accounts.models import User

    return User.objects.get(username=username)


def on_top(locator: Locator) -> bool:
    return locator.evaluate(TOPMOST)


def in_thread[T](work: Callable[[], T]) -> T:
    """``work`` off Playwright's loop, its database connection closed after."""

    def run() -> T:
        try:
            return work()
        finally:
            connection.close()

    return off_loop(run)


def ask(sender: str) -> None:
    in_thread(lambda: social_services.friend_request_send(sender=person(sender), recipient=person("ion")))


def sheet_below_the_top_bar(page: Page) -> tuple[float, float]:
    return page.evaluate(
        """() => [document.querySelector(".site-header").getBoundingClientRect().bottom,
                 document.getElementById("outcome").getBoundingClientRect().top]"""
    )


@pytest.mark.django_db(transaction=True)
def test_a_notice_lies_over_every_kind_of_page_and_its_accept_works_over_the_match_over_sheet(
    browser: Browser, live_server_url: str, settings
):
    # Every run of the suite asks the same account ids again within the hour.
    settings.SOCIAL_REQUESTS_PER_HOUR = settings.SOCIAL_REQUESTS_RECEIVED_PER_HOUR = 1000
    base = live_server_url
    senders = ["eva", "dan", "ema", "vlad", "ilie", "radu", "mara", "sara", "toma"]

    def people_and_places() -> tuple[int, int, int]:
        for name in senders:
            make_user(name)
        ion, ana = make_user("ion"), make_user("ana")
        finished = play_out(
            seated_match("americana", [ion, ana], {"players": 2, "target": 301}, private=True)
        )
        assert finished.status == finished.Status.FINISHED
        rounds = finished.rounds.count()
        assert rounds >= MANY_ROUNDS
        return finished.table_id, rounds, tournament(name="Cupa de iarnă").pk

    finished_table, rounds, tourney = in_thread(people_and_places)
    screens = []
    for name, size in (("phone", PHONE), ("desktop", DESKTOP)):
        small = size is PHONE
        context = browser.new_context(locale="en-GB", viewport=size, is_mobile=small, has_touch=small)
        context.add_init_script(SOCKETS)
        page = context.new_page()
        log_in(page, base, "ion")
        screens.append(Screen(name, page))
    phone, desktop = screens
    asking = iter(senders)

    def toast_on_top(kind: str, on: list[Screen] = screens) -> str:
        """A request sent now shows on the screens ``on``, over everything; the sender's name."""
        for screen in on:  # nothing of the page lies over the bell either
            assert on_top(screen.page.get_by_test_id("bell")), (
                f"{kind}: the bell is covered on the {screen.name}"
            )
        sender = next(asking)
        ask(sender)
        for screen in on:
            accept = screen.toast_from(sender).get_by_test_id("notice-accept")
            assert on_top(accept), f"{kind}: the toast's Accept is covered on the {screen.name}"
            screen.page.screenshot(path=ARTIFACTS / f"notices-on-top-{kind}-{screen.name}.png")
        return sender

    # The pool's waiting page.
    in_thread(
        lambda: social_services.pool_join(
            user=person("ion"), game="americana", players=2, length=101, fill_with_bots=False
        )
    )
    for screen in screens:
        screen.open(base + "/play/", lambda page: expect(page.get_by_test_id("pool-waiting")).to_be_visible())
    toast_on_top("pool")
    in_thread(lambda: social_services.pool_leave(user=person("ion")))

    pages = {
        "home": ("/", "main"),
        "lobby": ("/tables/", "main"),
        "tournament": (f"/tournaments/{tourney}/", "[data-testid=tournament-page]"),
        "profile": ("/accounts/profile/", "[data-testid=email-state]"),
    }
    for kind, (path, shown) in pages.items():
        for screen in screens:
            screen.open(
                base + path, lambda page, shown=shown: expect(page.locator(shown).first).to_be_visible()
            )
        toast_on_top(kind)

    # A table in play, its Scores and its chat open over it.
    playing = in_thread(
        lambda: (
            seated_match("americana", [person("ion"), person("ana")], {"players": 2}, private=True).table_id
        )
    )
    for screen in screens:
        screen.open(f"{base}/tables/{playing}/", live)
        screen.page.get_by_test_id("scores").locator("summary").click()
        expect(screen.page.locator(".scores-sheet")).to_be_visible()
        screen.page.get_by_test_id("chat-toggle").click()
        expect(screen.page.get_by_test_id("chat-panel")).to_be_visible()
    toast_on_top("table")

    # A finished table: the match-over sheet, all its rounds on the desktop, rises to the top
    # bar and no further; the toast lies over it, and its Accept works there.
    for screen in screens:
        screen.open(
            f"{base}/tables/{finished_table}/",
            lambda page: expect(page.get_by_test_id("match-over")).to_be_visible(),
        )
        bar_bottom, sheet_top = sheet_below_the_top_bar(screen.page)
        assert sheet_top >= bar_bottom - 1, f"the sheet lies under the top bar on the {screen.name}"
    rows = desktop.page.get_by_test_id("match-over").locator(".sheet-table tbody tr")
    expect(rows).to_have_count(rounds)
    bar_bottom, sheet_top = sheet_below_the_top_bar(desktop.page)
    assert sheet_top - bar_bottom < 2, "the rounds fill the desktop's screen up to the top bar"
    # Accepted on the desktop (which goes to its friends), then on the phone.
    for screen, on, kind in ((desktop, screens, "match-over"), (phone, [phone], "match-over-again")):
        for dismiss in screen.page.locator("#notice-toasts [data-dismiss-notice]").all():
            dismiss.click()  # the last request's toast, over the phone's bell
        sender = toast_on_top(kind, on)
        screen.toast_from(sender).get_by_test_id("notice-accept").click()
        expect(screen.page.get_by_test_id("friend-list")).to_contain_text(re.compile(rf"\b{sender}\b"))
        assert Friendship.objects.filter(person__username=sender, friend__username="ion").exists()
    for screen in screens:
        screen.page.context.close()
