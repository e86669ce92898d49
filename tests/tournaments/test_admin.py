"""The tournaments in the admin: moderators disqualify and cancel through the services, saying why and
never on their own case; the calendar is written by superusers alone, each line checked."""

import json
from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tests.factories import PASSWORD, make_user
from tournaments.models import Entry, ModeratorAction, Schedule, Tournament

from .conftest import CLASSIC_QUICK, entered, tournament

pytestmark = pytest.mark.django_db

TOURNAMENTS = reverse("admin:tournaments_tournament_changelist")
CALENDAR_ADD = reverse("admin:tournaments_schedule_add")


@pytest.fixture
def running(db) -> Tournament:
    """A running arena where ana leads ion."""
    event = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))
    entered(event, make_user("ana"), points=6, matches=3, wins=3)
    entered(event, make_user("ion"), points=2, matches=3, wins=1)
    return event


@pytest.fixture
def boss_client(client):
    client.force_login(User.objects.create_superuser("boss", "boss@example.com", PASSWORD))
    return client


def moderator() -> User:
    return User.objects.get(username="mod")


def disqualify(client, event: Tournament, entry: Entry | None, reason: str | None, **extra):
    data = {"action": "disqualify_player", "_selected_action": [event.pk]}
    if entry is not None:
        data["player"] = entry.pk
    if reason is not None:
        data["reason"] = reason
    return client.post(TOURNAMENTS, data, **extra)


def cancel(client, event: Tournament, reason: str | None, **extra):
    data = {"action": "cancel_tournaments", "_selected_action": [event.pk]}
    if reason is not None:
        data["reason"] = reason
    return client.post(TOURNAMENTS, data, **extra)


def shown_messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_a_moderator_disqualifies_a_player_saying_why_and_the_record_keeps_who_and_why(mod_client, running):
    ana = Entry.objects.get(tournament=running, user__username="ana")
    asked = disqualify(mod_client, running, None, None)
    assert asked.status_code == 200 and 'name="reason"' in asked.text
    assert f'<option value="{ana.pk}">ana</option>' in asked.text

    done = disqualify(mod_client, running, ana, "  Played with two accounts. ")
    assert done.status_code == 302
    ana.refresh_from_db()
    assert ana.disqualified_at is not None and ana.points == 0
    action = ModeratorAction.objects.get(tournament=running)
    assert (action.kind, action.player.username, action.by, action.reason) == (
        ModeratorAction.Kind.DISQUALIFY,
        "ana",
        moderator(),
        "Played with two accounts.",
    )
    record = mod_client.get(reverse("admin:tournaments_moderatoraction_changelist")).text
    assert "Played with two accounts." in record
    page = mod_client.get(reverse("admin:tournaments_tournament_change", args=[running.pk])).text
    assert "Played with two accounts." in page, "the tournament's page shows its record"
    for logged in LogEntry.objects.values_list("object_repr", "change_message"):
        assert not any("ana" in text for text in logged), "the admin's log names no player"


def test_a_disqualification_without_a_reason_is_refused_and_changes_nothing(mod_client, running):
    ana = Entry.objects.get(tournament=running, user__username="ana")
    response = disqualify(mod_client, running, ana, "   ")
    assert response.status_code == 200 and "This field is required." in response.text
    ana.refresh_from_db()
    assert ana.disqualified_at is None and ana.points == 6
    assert not ModeratorAction.objects.exists()


def test_a_moderator_playing_in_the_tournament_is_refused_their_own_case(mod_client, running):
    entered(running, moderator())
    ana = Entry.objects.get(tournament=running, user__username="ana")
    response = disqualify(mod_client, running, ana, "Cheating", follow=True)
    assert any("Nobody decides a case they are part of" in text for text in shown_messages(response))
    ana.refresh_from_db()
    assert ana.disqualified_at is None and ana.points == 6

    response = cancel(mod_client, running, "Broken", follow=True)
    assert any("Nobody decides a case they are part of" in text for text in shown_messages(response))
    assert Tournament.objects.get(pk=running.pk).status == Tournament.Status.RUNNING
    assert not ModeratorAction.objects.exists()


def test_disqualifying_asks_for_one_tournament_at_a_time(mod_client, running):
    other = tournament()
    response = mod_client.post(
        TOURNAMENTS,
        {"action": "disqualify_player", "_selected_action": [running.pk, other.pk], "reason": "x"},
        follow=True,
    )
    assert "Select one tournament to disqualify a player from." in shown_messages(response)
    assert not Entry.objects.filter(disqualified_at__isnull=False).exists()


def test_a_moderator_cancels_a_tournament_saying_why(mod_client, running):
    assert cancel(mod_client, running, "").status_code == 200, "asked why first"
    assert Tournament.objects.get(pk=running.pk).status == Tournament.Status.RUNNING

    response = cancel(mod_client, running, "The server broke mid-round.", follow=True)
    assert "1 tournament cancelled." in shown_messages(response)
    running.refresh_from_db()
    assert running.status == Tournament.Status.CANCELLED
    assert running.cancelled_because == "The server broke mid-round."
    action = ModeratorAction.objects.get(tournament=running)
    assert (action.kind, action.by, action.player) == (ModeratorAction.Kind.CANCEL, moderator(), None)

    again = cancel(mod_client, running, "Twice", follow=True)
    assert any("This tournament is over already." in text for text in shown_messages(again))
    assert ModeratorAction.objects.count() == 1


def test_staff_outside_the_moderators_can_neither_disqualify_nor_cancel(client, running):
    client.force_login(make_user("helper", is_staff=True))
    ana = Entry.objects.get(tournament=running, user__username="ana")
    assert disqualify(client, running, ana, "no").status_code == 403
    assert cancel(client, running, "no").status_code == 403
    ana.refresh_from_db()
    assert ana.disqualified_at is None
    assert Tournament.objects.get(pk=running.pk).status == Tournament.Status.RUNNING


def test_a_moderator_reads_a_tournament_but_never_its_private_link_nor_changes_it(mod_client, running):
    private = tournament(is_private=True)
    page = mod_client.get(reverse("admin:tournaments_tournament_change", args=[private.pk]))
    assert page.status_code == 200 and private.join_token not in page.text
    assert private.join_token not in mod_client.get(TOURNAMENTS, {"q": private.name}).text
    assert 'name="_save"' not in page.text
    change = reverse("admin:tournaments_tournament_change", args=[running.pk])
    assert mod_client.post(change, {"name": "Renamed"}).status_code == 403
    assert Tournament.objects.get(pk=running.pk).name == running.name


def calendar_line(**fields) -> dict:
    """The admin's form for an hourly arena of quick classic matches."""
    start = timezone.localtime() + timedelta(hours=1)
    return {
        "name": "Hourly classic arena",
        "active": "on",
        "first_start_0": start.strftime("%Y-%m-%d"),
        "first_start_1": start.strftime("%H:00:00"),
        "every_minutes": 60,
        "ahead_minutes": 60,
        "kind": "arena",
        "game": "classic",
        "options": json.dumps(CLASSIC_QUICK),
        "turn_clock": 20,
        "minutes": 30,
        "rounds": 4,
        "min_rated_matches": 0,
        "rating_min": "",
        "rating_max": "",
        "max_players": 1000,
        "_save": "Save",
        **fields,
    }


def test_a_moderator_cannot_open_or_write_the_calendar(mod_client):
    assert mod_client.get(reverse("admin:tournaments_schedule_changelist")).status_code == 403
    assert mod_client.post(CALENDAR_ADD, calendar_line()).status_code == 403
    assert not Schedule.objects.exists()


def test_a_superuser_adds_a_calendar_line_checked_as_a_tournament(boss_client):
    response = boss_client.post(CALENDAR_ADD, calendar_line())
    assert response.status_code == 302, response.text[:2000]
    line = Schedule.objects.get()
    assert line.options["players"] == 2 and line.rounds == 0, "an arena has no rounds"
    listed = boss_client.get(reverse("admin:tournaments_schedule_changelist")).text
    assert "Hourly classic arena" in listed


@pytest.mark.parametrize(
    ("fields", "refusal"),
    [
        ({"options": json.dumps({**CLASSIC_QUICK, "players": 5})}, "Choose how many play at a table"),
        ({"options": json.dumps({"match": "games1"})}, "Choose how many play at a table"),
        ({"options": json.dumps([2])}, "The match options are a JSON object"),
        ({"minutes": 500}, "Choose a length from 10 to 120 minutes."),
        ({"kind": "swiss", "minutes": 10, "rounds": 1}, "Choose from 2 to 11 rounds."),
        ({"every_minutes": 0}, "at least 10 minutes apart"),
        ({"ahead_minutes": 0}, "before it starts"),
        ({"rating_min": 1800, "rating_max": 1600}, "The lowest rating to enter is above the highest."),
        ({"max_players": 1}, "Let at least a table"),
    ],
)
def test_a_calendar_line_that_cannot_make_a_playable_tournament_is_refused_with_the_reason(
    boss_client, fields, refusal
):
    response = boss_client.post(CALENDAR_ADD, calendar_line(**fields))
    assert response.status_code == 200 and refusal in response.text
    assert not Schedule.objects.exists()


def test_an_invalid_game_option_is_refused_with_the_engines_reason(boss_client):
    options = json.dumps({**CLASSIC_QUICK, "match": "for ever"})
    response = boss_client.post(CALENDAR_ADD, calendar_line(options=options))
    assert response.status_code == 200 and "must be one of" in response.text
    assert not Schedule.objects.exists()


def test_a_superuser_changes_and_deletes_a_line_and_its_tournaments_stay(boss_client):
    assert boss_client.post(CALENDAR_ADD, calendar_line()).status_code == 302
    line = Schedule.objects.get()
    change = reverse("admin:tournaments_schedule_change", args=[line.pk])
    assert boss_client.post(change, calendar_line(name="Evening arena")).status_code == 302
    assert Schedule.objects.get().name == "Evening arena"
    made = tournament(schedule=line)
    delete = reverse("admin:tournaments_schedule_delete", args=[line.pk])
    assert boss_client.post(delete, {"post": "yes"}).status_code == 302
    assert not Schedule.objects.exists()
    made.refresh_from_db()
    assert made.schedule is None and made.status == Tournament.Status.UPCOMING
