"""A match at its own pace between a Romanian phone and an English desktop, played over several "days"
with the hour shortened on the live server (and here, where the match begins): each comes back to the
table, sees what happened since they were here and the clock in hours, plays, and leaves; once the
desktop lets its time run out, a bot plays that move for it, and coming back it reads so in a banner,
while the phone's top bar counts the matches waiting for it, kept live by the site socket."""

from collections.abc import Iterator
from functools import partial

import pytest
from playwright.sync_api import Browser, Page, expect

from bench.management.commands.practicebench import take_turn
from gameplay import selectors
from gameplay import services as gameplay_services
from gameplay.models import Match, Move
from tables import services as table_services
from tables.models import Pace
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_table_craft import live
from tests.conftest import (
    ARTIFACTS,
    TEST_QUEUE,
    site_env,
    site_of_its_own,
)
from tests.factories import make_user
from tests.gameplay.helpers import wait_until

PHONE = {"width": 375, "height": 667}
DESKTOP = {"width": 1280, "height": 800}
HOUR = 3.0
"""An hour at own pace here, in seconds: twelve hours a move are 36 seconds, room enough for a browser
on a busy machine to come back and play."""
DAYS = 6
"""Moves played by the people (days, as they would be)."""


@pytest.fixture
def pace_site(settings, tmp_path) -> Iterator[str]:
    """Daphne and a Celery worker with beat (the sweep) of their own, on a queue of their own, with the
    hour at own pace shortened; this process too, where the match begins and its first clock starts."""
    settings.OWN_PACE_HOUR_SECONDS = HOUR
    env = site_env(CELERY_QUEUE=f"{TEST_QUEUE}-pace", OWN_PACE_HOUR_SECONDS=str(HOUR), SWEEP_SECONDS="1")
    with site_of_its_own("own-pace-server", env, worker=True, beat_schedule=tmp_path / "beat") as url:
        yield url


def own_pace_table() -> tuple[int, list]:
    people = [make_user("ana"), make_user("john")]
    table = gameplay_services.table_create(
        host=people[0],
        game="classic",
        options={"players": 2},
        turn_clock=45,
        is_private=False,
        pace_hours=Pace.HOURS_12,
    )
    table_services.seat_take(table_id=table.pk, user=people[1])
    return table.pk, people


def current(table_id: int) -> Match:
    return Match.objects.get(table_id=table_id)


def stood_in_after(match_id: int, seat: int, made: int) -> bool:
    """Whether a bot has played ``seat``'s turn after the first ``made`` moves and handed the seat back
    (its turn may be several moves: a trick taken, the next one led)."""
    played = Move.objects.filter(match_id=match_id, seq__gt=made, seat=seat, actor=Move.Actor.TAKEOVER)
    return played.exists() and Match.objects.get(pk=match_id).due != Match.Due.BOT


def count_shown(count: int) -> str:
    return str(count) if count else ""


def come_back_and_play(page: Page, url: str, *, told_of: str | None) -> None:
    """The person opens the table, reads what happened since their last visit (moves of ``told_of``,
    when the other moved since), plays their move and goes to their "Your turn" page."""
    page.goto(url)
    live(page)
    clock = page.locator("#turn .clock.is-pace")
    expect(clock).to_be_visible()
    assert ":" not in clock.inner_text(), "hours and days, not a countdown in seconds"
    if told_of is not None:
        expect(page.get_by_test_id("pace-news")).to_contain_text(told_of)
    version = page.locator("input[name=version]").input_value()
    take_turn(page)
    expect(page.locator("input[name=version]")).not_to_have_value(version, timeout=10_000)
    page.goto(url.split("/tables/")[0] + "/tables/your-turn/")


@pytest.mark.django_db(transaction=True)
def test_a_match_at_own_pace_over_several_days_with_a_missed_deadline(browser: Browser, pace_site: str):
    table_id, people = off_loop(own_pace_table)
    url = f"{pace_site}/tables/{table_id}/"
    phone = browser.new_context(locale="ro-RO", viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    desktop = browser.new_context(locale="en-GB", viewport=DESKTOP).new_page()
    pages = [phone, desktop]
    for page, person in zip(pages, people, strict=True):
        log_in(page, pace_site, person.username)
        page.goto(f"{pace_site}/tables/your-turn/")
    expect(desktop.get_by_test_id("pace-cap")).to_contain_text("1 of 20 matches at your own pace")

    last_mover = None
    missed = False
    for _day in range(DAYS * 2):
        match = current(table_id)
        seat = match.to_act
        if match.status != Match.Status.PLAYING or seat is None:
            break
        # The phone's top bar counts the matches waiting for Ana, live.
        expect(phone.locator("[data-turns-count]")).to_have_text(
            count_shown(off_loop(selectors.pace_turns_count, people[0].pk)), timeout=10_000
        )
        if seat == 1 and not missed and match.moves_made >= 2:
            # John lets his time run out: a bot plays his move once the sweep finds it.
            missed = True
            assert wait_until(partial(stood_in_after, match.pk, 1, match.moves_made), timeout=90)
            desktop.goto(url)
            live(desktop)
            news = desktop.get_by_test_id("pace-news")
            expect(news.get_by_test_id("ran-out")).to_contain_text("Your time ran out: a bot")
            expect(news).to_contain_text("The bot for john")
            desktop.screenshot(path=ARTIFACTS / "own-pace-missed-en.png", full_page=True)
            desktop.goto(f"{pace_site}/tables/your-turn/")
            last_mover = 1
            continue
        told_of = people[1 - seat].username if last_mover not in (None, seat) else None
        come_back_and_play(pages[seat], url, told_of=told_of)
        last_mover = seat
        if _day == 3:
            phone.screenshot(path=ARTIFACTS / "own-pace-your-turn-ro.png", full_page=True)
    assert missed, "the desktop missed one deadline"
    match = current(table_id)
    assert Move.objects.filter(match=match, actor=Move.Actor.PLAYER).values("seat").distinct().count() == 2
    stood_in = Move.objects.filter(match=match, actor=Move.Actor.TAKEOVER).values_list("seat", flat=True)
    assert set(stood_in) == {1}, "a bot played only the turn John missed (one move or more: his turn)"
