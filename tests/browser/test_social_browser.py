"""Playing with people in real browsers: the pool pairs two people (one reading the site in Romanian)
at one table, fills a table short of people with a bot, lets a person cancel; a friend request and a
table invitation reach every open page of their recipient over the site-wide socket."""

import contextlib
import json
import re
import time

import pytest
from django.db import connection
from playwright.sync_api import Browser, Page, expect

from bench.management.commands.practicebench import take_turn
from gameplay import services as gameplay_services
from gameplay.models import Match
from social.models import FriendRequest, Friendship, Notice, PoolEntry
from tables.models import Seat, Table
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_table_craft import live
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 375, "height": 667}
TABLE_URL = re.compile(r"/tables/(\d+)/$")


def site_frames(page: Page) -> list[dict]:
    """Every message the page's site-wide socket receives from now on (each page it opens), in order."""
    frames: list[dict] = []

    def heard(payload) -> None:
        with contextlib.suppress(TypeError, ValueError):  # an empty frame (a notice gone)
            frames.append(json.loads(payload))

    def opened(socket) -> None:
        if "/ws/me/" in socket.url:
            socket.on("framereceived", heard)

    page.on("websocket", opened)
    return frames


def wait_for_frame(page: Page, frames: list[dict], kind: str, after: int = 0, timeout: float = 15) -> dict:
    """The first frame of ``kind`` the page's site socket received after the first ``after`` ones."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = next((frame for frame in frames[after:] if frame.get("kind") == kind), None)
        if found is not None:
            return found
        page.wait_for_timeout(50)  # Playwright hands over its events while it waits
    raise AssertionError(f"No {kind!r} frame within {timeout} s; heard {frames[after:]}")


def person(browser: Browser, base: str, username: str, locale: str = "en-GB") -> Page:
    page = browser.new_context(locale=locale, viewport=PHONE).new_page()
    log_in(page, base, username)
    return page


def choose(page: Page, base: str, *, players: int, fill_with_bots: bool | None = None) -> None:
    """The pool's form: Americana to 101 for ``players`` players."""
    page.goto(base + "/play/")
    form = page.get_by_test_id("pool-form")
    expect(form).to_be_visible()
    form.locator("input[name=game][value=americana]").check()
    form.locator(f"input[name=players][value='{players}']").check()
    form.locator("select[name=target]").select_option("101")
    if fill_with_bots is not None:
        form.locator("input[name=fill_with_bots]").set_checked(fill_with_bots)


def closed(function):
    """``function`` run in a thread of its own (``off_loop``), its database connection closed after."""

    def run(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        finally:
            connection.close()

    return lambda *args, **kwargs: off_loop(run, *args, **kwargs)


# --- The pool ------------------------------------------------------------------------------------


def test_two_people_one_in_romanian_are_paired_at_one_table_and_play(browser: Browser, live_server_url: str):
    make_user("ana")
    make_user("ion")
    ana = person(browser, live_server_url, "ana", "ro-RO")
    ion = person(browser, live_server_url, "ion", "en-GB")
    ana_frames = site_frames(ana)

    choose(ana, live_server_url, players=2)
    expect(ana.locator("html")).to_have_attribute("lang", "ro")
    # Two players: the form leaves "fill with bots" off.
    expect(ana.locator("input[name=fill_with_bots]")).not_to_be_checked()
    ana.get_by_test_id("pool-join").click()
    expect(ana.get_by_test_id("pool-waiting")).to_be_visible()
    expect(ana.get_by_test_id("pool-count")).to_have_text("1")
    entry = PoolEntry.objects.get(user__username="ana")
    assert entry.pool == "americana:2:101:rated" and entry.table_id is None
    # The waiting page's socket is open (it looks in the pool) and has said how many look.
    assert wait_for_frame(ana, ana_frames, "counts")["pools"].get("americana:2:101:rated", 1) == 1

    choose(ion, live_server_url, players=2)
    expect(ion.locator("html")).to_have_attribute("lang", "en")
    ion.get_by_test_id("pool-join").click()

    # Ion's join pairs them: Ion's page is sent to the table, Ana's socket tells hers to go there.
    expect(ion).to_have_url(TABLE_URL, timeout=15_000)
    expect(ana).to_have_url(TABLE_URL, timeout=15_000)
    paired = wait_for_frame(ana, ana_frames, "paired")
    table_id = int(TABLE_URL.search(ion.url).group(1))
    assert paired["url"] == f"/tables/{table_id}/"
    assert ana.url == ion.url

    table = Table.objects.get(pk=table_id)
    assert table.status == Table.Status.PLAYING and not table.is_private
    assert sorted(table.seats.values_list("user__username", flat=True)) == ["ana", "ion"]
    assert not table.seats.exclude(bot_level="").exists()
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.PLAYING

    pages = [ana, ion]
    for page in pages:
        live(page)
        expect(page.locator("#hand-area .hand-card")).to_have_count(5)
    # Whoever is to act plays a card (or draws) by clicks, and both pages follow.
    mover = next(page for page in pages if page.locator(".me-line.is-to-act").count())
    version = mover.locator("#turn input[name=version]").input_value()
    take_turn(mover)
    for page in pages:
        expect(page.locator("#turn input[name=version]")).not_to_have_value(version, timeout=10_000)
    assert match.moves.filter(actor="player").count() >= 1

    # The lobby lists the match under "Live now", with a link to watch it.
    visitor = browser.new_context(locale="en-GB", viewport=PHONE).new_page()
    visitor.goto(live_server_url + "/tables/")
    row = visitor.get_by_test_id("live-now").get_by_test_id("live-table")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("ana")
    expect(row.get_by_role("link", name="Watch")).to_have_attribute("href", f"/tables/{table_id}/")


def test_three_people_in_a_pool_of_four_get_one_bot(browser: Browser, live_server_url: str):
    names = ["ana", "ion", "eva"]
    for name in names:
        make_user(name)
    pages = [person(browser, live_server_url, name) for name in names]
    for page in pages:
        choose(page, live_server_url, players=4)
        # Four players: the form turns "fill with bots" on by itself.
        expect(page.locator("input[name=fill_with_bots]")).to_be_checked()
    for page in pages:
        page.get_by_test_id("pool-join").click()
    for page in pages:
        expect(page.get_by_test_id("pool-waiting")).to_be_visible()
    expect(pages[0].get_by_test_id("pool-waiting")).to_contain_text("3 seconds")
    entries = PoolEntry.objects.filter(user__username__in=names)
    assert entries.count() == 3 and all(entry.fill_with_bots for entry in entries)
    assert not entries.exclude(table=None).exists()  # three are too few for a table of four

    # After the (shortened) wait, a bot takes the fourth seat and all three go to the table.
    for page in pages:
        expect(page).to_have_url(TABLE_URL, timeout=20_000)
    urls = {page.url for page in pages}
    assert len(urls) == 1
    table = Table.objects.get(pk=int(TABLE_URL.search(urls.pop()).group(1)))
    assert table.status == Table.Status.PLAYING
    seats = list(table.seats.order_by("position"))
    assert len(seats) == 4
    assert sorted(seat.user.username for seat in seats if seat.user_id) == sorted(names)
    bots = [seat for seat in seats if seat.bot_level]
    assert len(bots) == 1 and bots[0].user_id is None
    assert Seat.objects.filter(user__username__in=names).count() == 3  # one table each, this one
    for page in pages:
        live(page)
        expect(page.locator(".badge-bot")).to_have_count(1)


def test_cancel_leaves_the_pool(browser: Browser, live_server_url: str):
    make_user("ana")
    page = person(browser, live_server_url, "ana")
    choose(page, live_server_url, players=3, fill_with_bots=False)
    page.get_by_test_id("pool-join").click()
    expect(page.get_by_test_id("pool-waiting")).to_be_visible()
    expect(page.get_by_test_id("pool-what")).to_contain_text("3")
    # The clock counts the wait.
    expect(page.get_by_test_id("pool-waited")).to_have_text(re.compile(r"^0:0[1-9]$"), timeout=5_000)
    assert PoolEntry.objects.filter(user__username="ana").exists()

    cancel = page.get_by_test_id("pool-cancel")
    # The button shows on the page's paper: its ink is not the paper's colour.
    ink, paper = cancel.evaluate(
        "b => [getComputedStyle(b).color, getComputedStyle(b.closest('.panel')).backgroundColor]"
    )
    assert ink != paper
    cancel.click()
    expect(page.get_by_test_id("pool-form")).to_be_visible()
    expect(page.get_by_test_id("pool-waiting")).to_have_count(0)
    assert not PoolEntry.objects.filter(user__username="ana").exists()
    # Reopening the page shows the form, not the waiting page.
    page.reload()
    expect(page.get_by_test_id("pool-form")).to_be_visible()


# --- Friends and invitations -----------------------------------------------------------------


@closed
def table_hosted_by(username: str) -> int:
    from accounts.models import User

    host = User.objects.get(username=username)
    table = gameplay_services.table_create(
        host=host, game="americana", options={"players": 3}, turn_clock=90, is_private=False
    )
    return table.pk


def test_a_friend_request_and_an_invitation_reach_every_open_page(browser: Browser, live_server_url: str):
    make_user("ana")
    ion_user = make_user("ion")
    ana = person(browser, live_server_url, "ana")
    # Ion has two pages of the site open, in one browser.
    ion_home = person(browser, live_server_url, "ion")
    ion_lobby = ion_home.context.new_page()
    ion_pages = [ion_home, ion_lobby]
    frames = [site_frames(page) for page in ion_pages]
    ion_home.goto(live_server_url + "/")
    ion_lobby.goto(live_server_url + "/tables/")
    for page, heard in zip(ion_pages, frames, strict=True):
        wait_for_frame(page, heard, "counts")  # its socket is open, listening for Ion
        expect(page.get_by_test_id("bell").locator("[data-bell-count]")).to_have_text("")
        page.evaluate("window.notReloaded = true")

    ana.goto(f"{live_server_url}/players/ion/")
    ana.get_by_test_id("add-friend").click()
    expect(ana.get_by_test_id("person-actions")).to_contain_text("Friend request sent")
    assert FriendRequest.objects.filter(sender__username="ana", recipient=ion_user).exists()

    for page in ion_pages:
        toast = page.locator("#notice-toasts").get_by_test_id("notice")
        expect(toast).to_have_count(1)
        expect(toast).to_contain_text("ana would like to be your friend.")
        expect(page.get_by_test_id("bell").locator("[data-bell-count]")).to_have_text("1")
        assert page.evaluate("window.notReloaded") is True  # live, without a reload
        # It stays, to be answered: it neither fades away nor lets clicks through.
        assert toast.evaluate(
            "el => [getComputedStyle(el).animationName, getComputedStyle(el).pointerEvents]"
        ) == ["none", "auto"]

    ion_lobby.locator("#notice-toasts").get_by_test_id("notice-accept").click()
    expect(ion_lobby.get_by_test_id("friends-page")).to_be_visible()
    expect(ion_lobby.get_by_test_id("friend-list").get_by_test_id("friend")).to_have_text(
        re.compile(r"\bana\b")
    )
    assert Friendship.objects.filter(person__username="ana", friend=ion_user).exists()
    assert not FriendRequest.objects.exists()

    ana.goto(live_server_url + "/friends/")
    friend = ana.get_by_test_id("friend-list").get_by_test_id("friend")
    expect(friend).to_have_count(1)
    expect(friend).to_contain_text("ion")
    expect(friend).to_contain_text("online")  # Ion's pages are open
    # Ion's acceptance is a notice for Ana too.
    expect(ana.get_by_test_id("bell").locator("[data-bell-count]")).to_have_text("1")

    # Ana's table, waiting for two more: she invites Ion from its waiting room.
    table_id = table_hosted_by("ana")
    ana.goto(f"{live_server_url}/tables/{table_id}/")
    invite = ana.get_by_test_id("invite-friends")
    expect(invite).to_be_visible()
    seen_before = len(frames[0])
    invite.get_by_test_id("invite-ion").click()
    expect(ana.get_by_test_id("invite-friends")).to_contain_text("Invited")
    expect(ana.get_by_test_id("invite-ion")).to_have_count(0)
    notice = Notice.objects.get(kind=Notice.Kind.INVITATION)
    assert notice.recipient_id == ion_user.pk and notice.table_id == table_id

    # The invitation reaches Ion's home page, still open since the request (and no reload).
    wait_for_frame(ion_home, frames[0], "notice", after=seen_before)
    invitation = (
        ion_home.locator("#notice-toasts")
        .get_by_test_id("notice")
        .filter(has=ion_home.get_by_test_id("notice-join"))
    )
    expect(invitation).to_contain_text("ana invites you to their table of Șeptică Americană.")
    assert ion_home.evaluate("window.notReloaded") is True
    # The answered request no longer counts: the invitation is the one unread notice.
    expect(ion_home.get_by_test_id("bell").locator("[data-bell-count]")).to_have_text("1")
    invitation.get_by_test_id("notice-join").click()

    expect(ion_home).to_have_url(f"{live_server_url}/tables/{table_id}/")
    expect(ion_home.get_by_test_id("seat-1")).to_contain_text("ion")
    assert Table.objects.get(pk=table_id).seats.filter(user=ion_user).exists()
    notice.refresh_from_db()
    assert notice.closed
    # Ana's waiting room learns of Ion over its own socket.
    expect(ana.get_by_test_id("seat-1")).to_contain_text("ion", timeout=10_000)
