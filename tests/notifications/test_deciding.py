"""Deciding what a person is sent: by their settings (the defaults before they save any), a push to a
subscribed browser, an email to a confirmed address, nothing while they have the site open or watch the
match, and after their quiet hours in their own time zone; the news heard from gameplay, the social
notices and a moderator's warning."""

import base64
import json
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone, translation

from config.celery import app
from gameplay import presence
from gameplay.models import Match
from gameplay.signals import pace_stood_in, pace_turn
from notifications import events, services, tasks, texts
from notifications.models import DEFAULT_WAYS, Delivery, Kind, Preference, Way
from social import services as social_services
from tables.models import Pace
from tests.conftest import queued
from tests.factories import make_user
from tests.gameplay.helpers import human_match


def decided(broker) -> None:
    """Run here the decisions the receivers queued (as the worker would), and empty the queue."""
    for message in queued(broker, events.DECIDE):
        body = json.loads(base64.b64decode(message["body"]))
        tasks.decide(*body[0], **body[1])
    broker.delete(app.conf.task_default_queue)


def person_at(match: Match):
    return match.table.seats.get(position=match.to_act).user


def tell_turn(match: Match, broker) -> dict[str, Delivery]:
    """Gameplay announcing the turn (as it does once the move that began it has committed), and what
    was decided of it: the outbox's rows for its person, by way."""
    person = person_at(match)
    pace_turn.send(
        Match,
        match_id=match.pk,
        table_id=match.table_id,
        seat=match.to_act,
        user_id=person.pk,
        due_at=match.due_at,
        version=match.version,
    )
    decided(broker)
    return {delivery.way: delivery for delivery in Delivery.objects.filter(user=person)}


@pytest.fixture
def match(db, vapid, broker):
    return human_match("classic", pace_hours=Pace.DAY_1, prefix="d")[0]


def test_a_turn_is_pushed_to_a_subscribed_browser_and_mailed_to_a_confirmed_address_once(
    match, push_service, broker
):
    person = person_at(match)
    push_service.subscribe(person)
    kept = tell_turn(match, broker)
    assert set(kept) == {Way.PUSH, Way.EMAIL}
    assert all(
        delivery.kind == Kind.YOUR_TURN and delivery.due_at <= timezone.now() for delivery in kept.values()
    )
    assert kept[Way.PUSH].link == f"/tables/{match.table_id}/"
    assert tell_turn(match, broker) == kept, "the same turn heard twice is kept once"

    Delivery.objects.all().delete()
    person.email_confirmed_at = None
    person.save()
    assert set(tell_turn(match, broker)) == {Way.PUSH}, "no email to an address not confirmed"
    Delivery.objects.all().delete()
    person.push_subscriptions.all().delete()
    assert tell_turn(match, broker) == {}, "no push without a browser subscribed"


def test_nothing_is_sent_to_a_person_with_the_site_open_or_watching_the_match(match, push_service, broker):
    person = person_at(match)
    push_service.subscribe(person)
    presence.site_arrive(person.pk, "a-tab")
    try:
        assert tell_turn(match, broker) == {}
    finally:
        presence.site_leave(person.pk, "a-tab")
    presence.arrive(match.table_id, match.to_act, "the-table-page")
    try:
        assert tell_turn(match, broker) == {}
    finally:
        presence.leave(match.table_id, match.to_act, "the-table-page")
    assert set(tell_turn(match, broker)) == {Way.PUSH, Way.EMAIL}


def test_the_person_s_settings_choose_the_ways_of_each_kind(
    match, push_service, broker, django_capture_on_commit_callbacks
):
    person, friend = person_at(match), make_user("friend")
    push_service.subscribe(person)
    services.preference_save(
        user=person,
        ways={Kind.YOUR_TURN: [], Kind.FRIEND_REQUEST: [Way.EMAIL, Way.SITE]},
        quiet_from=None,
        quiet_until=None,
        time_zone="Europe/Bucharest",
        language="ro",
    )
    assert tell_turn(match, broker) == {}
    with django_capture_on_commit_callbacks(execute=True):
        social_services.friend_request_send(sender=friend, recipient=person)
    decided(broker)
    (request,) = Delivery.objects.filter(user=person)
    assert (request.kind, request.way, request.params["from"]) == (Kind.FRIEND_REQUEST, Way.EMAIL, "friend")
    assert request.link == "/friends/"


def test_a_move_a_bot_played_for_the_person_is_news_of_their_match(match, broker):
    person = person_at(match)
    pace_stood_in.send(
        Match,
        match_id=match.pk,
        table_id=match.table_id,
        seat=match.to_act,
        user_id=person.pk,
        missed=3,
        for_good=True,
    )
    decided(broker)
    (news,) = Delivery.objects.filter(user=person)
    assert (news.kind, news.way, news.key) == (Kind.PACE_RESULT, Way.EMAIL, f"missed:{match.pk}:3")
    with translation.override("en"):
        assert texts.said(news).title == "A bot took your seat"


def test_a_moderator_s_warning_is_mailed_in_their_words(
    db, vapid, broker, django_capture_on_commit_callbacks
):
    from chat import services as chat_services

    person = make_user("warned")
    moderator = make_user("mod", is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    with django_capture_on_commit_callbacks(execute=True):
        chat_services.chat_warn(subject_id=person.pk, by=moderator, reason="Keep it friendly.")
    decided(broker)
    (warning,) = Delivery.objects.filter(user=person)
    assert (warning.kind, warning.way, warning.params["reason"]) == (
        Kind.WARNING,
        Way.EMAIL,
        "Keep it friendly.",
    )


NEW_YORK, BUCHAREST = ZoneInfo("America/New_York"), ZoneInfo("Europe/Bucharest")


@pytest.mark.parametrize(
    ("zone", "quiet", "now", "ends"),
    [
        # 23:00 on the 6th in New York, quiet 22:00-07:00: over at 07:00 the next morning there.
        (
            NEW_YORK,
            (22, 7),
            datetime(2026, 12, 7, 4, 0, tzinfo=UTC),
            datetime(2026, 12, 7, 7, 0, tzinfo=NEW_YORK),
        ),
        # The same instant is 06:00 in Bucharest: over within the hour.
        (
            BUCHAREST,
            (22, 7),
            datetime(2026, 12, 7, 4, 0, tzinfo=UTC),
            datetime(2026, 12, 7, 7, 0, tzinfo=BUCHAREST),
        ),
        # 02:30 in New York, after midnight: over at 07:00 the same day there.
        (
            NEW_YORK,
            (22, 7),
            datetime(2026, 12, 7, 7, 30, tzinfo=UTC),
            datetime(2026, 12, 7, 7, 0, tzinfo=NEW_YORK),
        ),
        (NEW_YORK, (22, 7), datetime(2026, 12, 7, 12, 30, tzinfo=UTC), None),  # 07:30 there: not quiet
        (
            BUCHAREST,
            (13, 15),
            datetime(2026, 12, 7, 12, 0, tzinfo=UTC),
            datetime(2026, 12, 7, 15, 0, tzinfo=BUCHAREST),
        ),
        (BUCHAREST, (13, 15), datetime(2026, 12, 7, 13, 0, tzinfo=UTC), None),  # 15:00 there: just over
    ],
)
def test_quiet_hours_end_in_the_person_s_time_zone(zone, quiet, now, ends):
    preference = Preference(time_zone=str(zone), quiet_from=time(quiet[0]), quiet_until=time(quiet[1]))
    assert preference.quiet_end(now) == ends


def test_in_quiet_hours_a_turn_waits_for_their_end(match, push_service, broker):
    person = person_at(match)
    push_service.subscribe(person)
    here = timezone.now().astimezone(NEW_YORK)
    services.preference_save(
        user=person,
        ways=DEFAULT_WAYS,
        quiet_from=(here - timedelta(hours=1)).time().replace(second=0, microsecond=0),
        quiet_until=(here + timedelta(hours=2)).time().replace(second=0, microsecond=0),
        time_zone="America/New_York",
        language="en",
    )
    kept = tell_turn(match, broker)
    end = (here + timedelta(hours=2)).replace(second=0, microsecond=0)
    assert {way: delivery.due_at for way, delivery in kept.items()} == {Way.PUSH: end, Way.EMAIL: end}
    assert services.deliveries_due() == ([], [])
    assert services.deliveries_due(now=end) == ([kept[Way.PUSH].pk], [(person.pk, Kind.YOUR_TURN)])
