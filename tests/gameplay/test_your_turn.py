"""The "Your turn" page: a person's matches at their own pace, the ones waiting for their move first,
with how long is left and the cap; their holiday taken, refused beyond the days left, and ended; and the
top bar's count on every page, for people logged in only."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from gameplay import durations, services
from gameplay.models import Match
from tables import services as table_services
from tables.models import Pace
from tests.factories import make_user
from tests.gameplay.helpers import first_legal

pytestmark = pytest.mark.django_db(transaction=True)

HOUR = 3600.0
"""An hour at own pace in these tests, in seconds: a whole one, so a minute of a slow run shows in no
time left."""


@pytest.fixture(autouse=True)
def short_hours(settings):
    settings.OWN_PACE_HOUR_SECONDS = HOUR


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def pace_table(host, guest=None, *, game: str = "classic", players: int = 2, pace: int = Pace.DAY_1):
    """A table at own pace hosted by ``host``, ``guest`` sat down (the match begins when it is full)."""
    table = services.table_create(
        host=host, game=game, options={"players": players}, turn_clock=45, is_private=False, pace_hours=pace
    )
    if guest is not None:
        table_services.seat_take(table_id=table.pk, user=guest)
    return table


def turn_of(table, seat: int) -> Match:
    """The table's match, played on (first legal moves) until ``seat`` is to move."""
    match = Match.objects.get(table=table)
    for _ in range(10):
        match.refresh_from_db()
        if match.to_act == seat:
            return match
        mover, action = first_legal(match)
        services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
    raise AssertionError("the turn never came")


def pace_hours(hours: float) -> timedelta:
    return timedelta(seconds=hours * HOUR)


@pytest.mark.parametrize(
    ("span", "words"),
    [
        (pace_hours(27.5), "1 day 3 hours"),
        (pace_hours(48), "2 days"),
        (pace_hours(2 + 5 / 60), "2 hours 5 minutes"),
        (pace_hours(40 / 60), "40 minutes"),
        (pace_hours(1 / 60), "1 minute"),
        (pace_hours(0.5 / 60), "less than a minute"),
    ],
)
def test_time_at_own_pace_reads_in_its_two_largest_units(span, words):
    assert durations.duration_words(span) == words


def test_time_left_says_when_none_is(settings):
    assert durations.time_left_words(pace_hours(3)) == "3 hours left"
    assert durations.time_left_words(timedelta(seconds=-1)) == "no time left"


def test_the_page_lists_the_matches_waiting_for_the_person_first_with_the_time_left_and_the_cap(settings):
    settings.OWN_PACE_MATCHES_MAX = 5
    me, you = make_user("me"), make_user("you")
    theirs = pace_table(me, you, game="americana", pace=Pace.HOURS_12)
    turn_of(theirs, 1)
    waiting = pace_table(me, players=3, pace=Pace.DAYS_2)
    mine = pace_table(you, me)
    turn_of(mine, 1)
    page = logged_in(me).get(reverse("gameplay:your_turn"))
    assert page.status_code == 200
    rows = page.context["tables"]
    assert [row.table.pk for row in rows] == [mine.pk, theirs.pk, waiting.pk]
    assert [row.my_turn for row in rows] == [True, False, False]
    assert rows[0].opponents == ["you"] and rows[1].to_act_name == "you" and rows[2].match is None
    text = page.content.decode()
    assert "23 hours 59 minutes left" in text or "1 day left" in text, "a day a move, just begun"
    assert "11 hours 59 minutes left" in text or "12 hours left" in text
    assert "waiting for players" in text
    assert "3 of 5 matches at your own pace" in text
    assert "1 day a move" in text and "2 days a move" in text and "12 hours a move" in text
    assert "30 days of holiday left this year." in text


def test_the_top_bar_counts_the_moves_waiting_for_the_person_with_one_query():
    me, you = make_user("me"), make_user("you")
    for _ in range(2):
        turn_of(pace_table(me, you), 0)
    client = logged_in(me)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("history:mine"))
    assert 'data-turns-count aria-live="polite">2</span>' in page.content.decode()
    counted = [query for query in queries if "to_act" in query["sql"] and "COUNT(" in query["sql"]]
    assert len(counted) == 1
    assert 'data-testid="turns-link"' in logged_in(you).get(reverse("history:mine")).content.decode()
    assert "is-none" in logged_in(you).get(reverse("history:mine")).content.decode()


def test_a_visitor_not_logged_in_sees_no_count_and_costs_no_query(django_assert_num_queries):
    visitor = Client(HTTP_ACCEPT_LANGUAGE="en")
    visitor.get(reverse("home"))  # the site's first page read warms what any page reads once
    with django_assert_num_queries(0):
        page = visitor.get(reverse("privacy:policy"))
    assert 'data-testid="turns-link"' not in page.content.decode()


def test_a_holiday_taken_shown_and_ended_from_the_page(settings):
    settings.OWN_PACE_HOLIDAY_DAYS_A_YEAR = 5
    me = make_user("traveller")
    client = logged_in(me)
    refused = client.post(reverse("gameplay:holiday_take"), {"days": 6})
    assert refused.status_code == 400
    assert "You have 5 days of holiday left this year." in refused.content.decode()
    assert services.holiday_now(me.pk) is None
    taken = client.post(reverse("gameplay:holiday_take"), {"days": 2}, follow=True)
    text = taken.content.decode()
    assert services.holiday_now(me.pk) is not None
    assert 'data-testid="holiday-now"' in text and "3 days of holiday left this year." in text
    again = client.post(reverse("gameplay:holiday_take"), {"days": 1})
    assert "You are on holiday already." in again.content.decode()
    ended = client.post(reverse("gameplay:holiday_end"), follow=True)
    assert services.holiday_now(me.pk) is None
    assert "4 days of holiday left this year." in ended.content.decode(), "the unused day given back"
    assert 'data-testid="holiday-take"' in ended.content.decode()


def test_the_lobby_shows_each_tables_pace_and_links_the_page():
    me, you = make_user("me"), make_user("you")
    pace_table(me, players=3, pace=Pace.DAYS_7)
    page = logged_in(you).get(reverse("tables:lobby")).content.decode()
    assert "7 days a move" in page
    assert reverse("gameplay:your_turn") in page


def test_holidays_started_and_ended_spend_the_persons_and_the_addresss_budgets(settings):
    settings.HOLIDAY_CHANGES_PER_DAY = 2
    settings.HOLIDAY_CHANGES_PER_ADDRESS_PER_DAY = 3
    me = make_user("restless")
    client = logged_in(me)
    client.post(reverse("gameplay:holiday_take"), {"days": 1})
    client.post(reverse("gameplay:holiday_end"))
    refused = client.post(reverse("gameplay:holiday_take"), {"days": 1})
    assert refused.status_code == 400
    assert "too often today" in refused.content.decode() and services.holiday_now(me.pk) is None
    ended = client.post(reverse("gameplay:holiday_end"), follow=True)
    assert "too often today" in ended.content.decode()
    neighbour = make_user("neighbour")  # another account from the same address
    other = logged_in(neighbour)
    other.post(reverse("gameplay:holiday_take"), {"days": 1})
    from_network = other.post(reverse("gameplay:holiday_end"), follow=True)
    assert "from your network" in from_network.content.decode()
    assert services.holiday_now(neighbour.pk) is not None
