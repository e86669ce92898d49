"""Matches at their own pace: the deadline on the match row (found by the sweep, nothing queued), a bot
playing a move whose time ran out and handing the seat back, the seat the bot's for good after a few,
a late move refused, holidays stopping the clocks, and the cap on such matches."""

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.services import bot_turn
from gameplay import services, signals
from gameplay.frames import ActionRefused
from gameplay.models import Holiday, Match, Move, Participant, SeatChange
from privacy import services as privacy_services
from privacy.export import person_data
from tables import services as table_services
from tables.models import Pace, Seat
from tables.services import TableError
from tests.factories import make_user
from tests.gameplay.helpers import first_legal, human_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quick_pauses")]

HOUR = 0.5
"""An hour at own pace in these tests, in seconds."""


@pytest.fixture(autouse=True)
def short_hours(settings):
    settings.OWN_PACE_HOUR_SECONDS = HOUR
    settings.OWN_PACE_STAND_INS_FOR_GOOD = 2


@pytest.fixture
def heard():
    """What gameplay told the apps above of own-pace turns and stand-ins, in order."""
    told: list[tuple[str, dict]] = []

    def turn(sender, **kwargs):
        told.append(("turn", kwargs))

    def stood_in(sender, **kwargs):
        told.append(("stood_in", kwargs))

    signals.pace_turn.connect(turn)
    signals.pace_stood_in.connect(stood_in)
    yield told
    signals.pace_turn.disconnect(turn)
    signals.pace_stood_in.disconnect(stood_in)


def run_out(match: Match) -> None:
    """The time for the move the match waits for runs out (the sweep's slack passed too)."""
    Match.objects.filter(pk=match.pk).update(due_at=timezone.now() - timedelta(seconds=5))


def test_a_turn_at_own_pace_waits_on_the_row_for_its_time_and_its_person_is_told_once(heard):
    match, users = human_match("classic", 2, pace_hours=Pace.DAY_1)
    match.refresh_from_db()
    assert match.due == Match.Due.PACE
    left = (match.due_at - timezone.now()).total_seconds()
    assert 24 * HOUR - 1 < left <= 24 * HOUR
    assert match.clock_check_at is None, "nothing is queued for a deadline days away"
    mover, action = first_legal(match)
    assert [(kind, told["user_id"], told["seat"]) for kind, told in heard] == [
        ("turn", users[mover].pk, mover)
    ]
    services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
    match.refresh_from_db()
    assert [told["user_id"] for _kind, told in heard] == [users[mover].pk, users[match.to_act].pk]


def test_a_move_whose_time_ran_out_is_played_by_a_bot_and_the_seat_handed_back(heard):
    match, users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    mover, action = first_legal(match)
    run_out(match)
    with pytest.raises(ActionRefused, match="ran out"):
        services.act(
            match_id=match.pk,
            seat=mover,
            action=action,
            expected_version=match.version,
            user_id=users[mover].pk,
        )
    assert services.sweep() == 1
    match.refresh_from_db()
    assert match.due == Match.Due.BOT, "the stand-in plays the move now"
    with pytest.raises(ActionRefused, match="ran out"):
        services.act(
            match_id=match.pk, seat=mover, action=action, expected_version=match.version, reclaim=True
        )
    assert not services.seat_reclaim(match_id=match.pk, seat=mover), 'no "I\'m back" at own pace'
    assert bot_turn(match_id=match.pk, expected_version=match.version)
    move = Move.objects.get(match=match)
    assert (move.seat, move.actor) == (mover, Move.Actor.TAKEOVER)
    seat = Seat.objects.get(table_id=match.table_id, position=mover)
    assert (seat.user_id, seat.is_taken_over) == (users[mover].pk, False), "the seat is its person's again"
    assert list(SeatChange.objects.filter(match=match).values_list("kind", flat=True)) == [
        SeatChange.Kind.STOOD_IN,
        SeatChange.Kind.BACK,
    ]
    stood_in = [told for kind, told in heard if kind == "stood_in"]
    assert [(told["user_id"], told["missed"], told["for_good"]) for told in stood_in] == [
        (users[mover].pk, 1, False)
    ]
    match.refresh_from_db()
    assert match.due == Match.Due.PACE and match.to_act != mover


def test_after_the_stated_number_of_missed_moves_the_seat_is_the_bots_for_good(heard):
    match, users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    missed_by = None
    for _ in range(40):
        match.refresh_from_db()
        mover, action = first_legal(match)
        if missed_by is None or mover == missed_by:
            missed_by = mover
            run_out(match)
            services.sweep()
            match.refresh_from_db()
            if match.due == Match.Due.BOT:
                bot_turn(match_id=match.pk, expected_version=match.version)
        else:
            services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
        seat = Seat.objects.get(table_id=match.table_id, position=missed_by)
        if seat.user_id is None:
            break
    assert (seat.user_id, seat.bot_level) == (None, "normal")
    stood_in = [(told["missed"], told["for_good"]) for kind, told in heard if kind == "stood_in"]
    assert stood_in == [(1, False), (2, True)]
    person = Participant.objects.get(match=match, seat=missed_by, user=users[missed_by])
    assert person.until_move is not None, "the person counts as having left the match"


def test_a_person_away_from_the_table_is_not_stood_in_for_before_their_time(settings):
    settings.GONE_GRACE_SECONDS = 0
    match, _users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    match.refresh_from_db()
    match.turn_started_at = timezone.now() - timedelta(hours=1)
    Match.objects.filter(pk=match.pk).update(turn_started_at=match.turn_started_at)
    assert services.sweep() == 0
    assert not Seat.objects.filter(table_id=match.table_id, is_taken_over=True).exists()


def test_a_holiday_stops_the_clocks_and_ending_it_early_gives_the_rest_back():
    match, users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    match.refresh_from_db()
    mover = match.to_act
    person, other = users[mover], users[1 - mover]
    deadline = match.due_at
    holiday = services.holiday_start(user=person, days=2)
    length = holiday.ends_at - holiday.starts_at
    assert length == timedelta(seconds=48 * HOUR)
    match.refresh_from_db()
    assert abs((match.due_at - (deadline + length)).total_seconds()) < 0.5, "the turn's time left is kept"
    with pytest.raises(services.PaceError):
        services.holiday_start(user=person, days=1)

    # The other's clock runs on; when the turn comes back to the person on holiday, it waits for its end.
    services.holiday_start(user=other, days=1)
    assert services.holiday_end(user=other)
    assert services.holiday_end(user=person)
    match.refresh_from_db()
    assert abs((match.due_at - deadline).total_seconds()) < 1.0
    assert services.holiday_days_left(person.pk) == 30 - 1, "one day begun, the rest given back"


def test_a_turn_that_comes_during_a_holiday_gets_its_time_once_the_holiday_ends():
    match, users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    mover, action = first_legal(match)
    nxt = users[1 - mover]
    holiday = services.holiday_start(user=nxt, days=3)
    services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
    match.refresh_from_db()
    assert match.to_act == 1 - mover
    expected = holiday.ends_at + timedelta(seconds=12 * HOUR)
    assert abs((match.due_at - expected).total_seconds()) < 0.5


def test_holiday_days_are_counted_against_the_years_allowance(settings):
    settings.OWN_PACE_HOLIDAY_DAYS_A_YEAR = 3
    person = make_user("traveller")
    with pytest.raises(services.PaceError, match="3 days"):
        services.holiday_start(user=person, days=4)
    services.holiday_start(user=person, days=3)
    assert services.holiday_days_left(person.pk) == 0


def test_a_person_may_sit_at_a_stated_number_of_own_pace_tables(settings):
    settings.OWN_PACE_MATCHES_MAX = 2
    host, guest = make_user("host"), make_user("guest")
    tables = [
        services.table_create(
            host=host, game="classic", options={"players": 2}, turn_clock=45, is_private=False, pace_hours=24
        )
        for _ in range(2)
    ]
    with pytest.raises(TableError, match="2 matches at your own pace"):
        services.table_create(
            host=host, game="classic", options={"players": 2}, turn_clock=45, is_private=False, pace_hours=24
        )
    live = services.table_create(
        host=host, game="classic", options={"players": 2}, turn_clock=45, is_private=False
    )
    assert live.pace_hours == 0, "live tables do not count"
    other = services.table_create(
        host=guest, game="americana", options={"players": 3}, turn_clock=45, is_private=False, pace_hours=48
    )
    services.table_create(
        host=guest, game="americana", options={"players": 3}, turn_clock=45, is_private=False, pace_hours=48
    )
    with pytest.raises(TableError, match="own pace"):
        table_services.seat_take(table_id=tables[0].pk, user=guest)
    table_services.seat_leave(table_id=other.pk, user=guest)
    table_services.seat_take(table_id=tables[0].pk, user=guest)


def test_a_persons_holidays_are_in_their_data_download_and_go_with_their_account():
    person = make_user("wanderer")
    holiday = services.holiday_start(user=person, days=2)
    assert services.holiday_end(user=person)
    holiday.refresh_from_db()
    assert person_data(person)["holidays"] == [
        {"from": holiday.starts_at.isoformat(), "until": holiday.ends_at.isoformat()}
    ]
    assert privacy_services.account_erase(user=person)
    assert not Holiday.objects.filter(user_id=person.pk).exists()
