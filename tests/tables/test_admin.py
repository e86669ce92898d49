"""Moderation in Django admin: every action works and leaves an admin log entry."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.urls import reverse

from gameplay import services as gameplay_services
from gameplay.models import Match
from tables import services
from tables.models import Seat, Table
from tests.factories import make_user


@pytest.fixture
def moderator(db):
    return make_user("mod", is_staff=True, is_superuser=True)


@pytest.fixture(params=["superuser", "moderator"])
def admin_user(request, db):
    """Whoever moderates: a superuser, or staff in the Moderators group."""
    if request.param == "superuser":
        return make_user("boss", is_staff=True, is_superuser=True)
    user = make_user("mod", is_staff=True)
    user.groups.add(Group.objects.get(name="Moderators"))
    return user


def test_table_admin_filters_and_searches_by_player(client, moderator):
    ana, ion = make_user("ana"), make_user("ion")
    t1 = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    services.seat_take(table_id=t1.pk, user=ion)
    gameplay_services.table_create(host=ana, game="classic", options={}, turn_clock=0, is_private=True)
    client.force_login(moderator)
    url = reverse("admin:tables_table_changelist")
    assert client.get(url, {"q": "ion"}).context["cl"].result_count == 1
    assert client.get(url, {"game__exact": "classic"}).context["cl"].result_count == 1
    assert client.get(url, {"is_private__exact": "1"}).context["cl"].result_count == 1
    assert client.get(url, {"status__exact": "playing"}).context["cl"].result_count == 1
    assert client.get(reverse("admin:tables_table_change", args=[t1.pk])).status_code == 200


def test_close_action_aborts_the_match_and_is_logged(client, moderator):
    table = gameplay_services.play_now(user=make_user("ana"), game="americana")
    client.force_login(moderator)
    client.post(
        reverse("admin:tables_table_changelist"), {"action": "close_tables", "_selected_action": [table.pk]}
    )
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert Match.objects.get(table=table).status == Match.Status.ABORTED
    assert LogEntry.objects.filter(object_id=str(table.pk), content_type__model="table").exists()


def test_remove_player_action_puts_a_bot_in_and_is_logged(client, moderator):
    ana, ion = make_user("ana"), make_user("ion")
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    services.seat_take(table_id=table.pk, user=ion)
    seat = Seat.objects.get(table=table, position=1)
    client.force_login(moderator)
    client.post(
        reverse("admin:tables_seat_changelist"), {"action": "replace_with_bot", "_selected_action": [seat.pk]}
    )
    seat.refresh_from_db()
    assert seat.user is None and seat.bot_level == "normal"
    assert LogEntry.objects.filter(object_id=str(seat.pk), content_type__model="seat").exists()


def test_deactivate_player_action_bans_and_is_logged(client, moderator):
    ana = make_user("ana")
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    seat = Seat.objects.get(table=table, position=0)
    client.force_login(moderator)
    client.post(
        reverse("admin:tables_seat_changelist"),
        {"action": "deactivate_players", "_selected_action": [seat.pk]},
    )
    ana.refresh_from_db()
    assert not ana.is_active
    entry = LogEntry.objects.get(object_id=str(ana.pk), content_type__model="user")
    assert entry.user == moderator
    assert entry.get_change_message() == f"Banned from seat 0 of table #{table.pk}."


def test_no_table_field_is_written_through_the_admin(client, admin_user):
    """Making a private table public would open its replay, every hand face up, to everyone: what a
    moderator changes goes through a service (the actions), never the change form."""
    table = gameplay_services.table_create(
        host=make_user("ana"), game="americana", options={"players": 2}, turn_clock=0, is_private=True
    )
    client.force_login(admin_user)
    change = reverse("admin:tables_table_change", args=[table.pk])
    page = client.get(change).text
    assert 'name="is_private"' not in page and 'name="turn_clock"' not in page
    assert 'name="_save"' not in page
    made_public = {"turn_clock": "20", "seats-TOTAL_FORMS": "0", "seats-INITIAL_FORMS": "0"}  # no is_private
    response = client.post(change, {**made_public, "game": "classic", "status": "closed"})
    assert response.status_code == 403
    table.refresh_from_db()
    assert (table.is_private, table.turn_clock, table.game, table.status) == (True, 0, "americana", "waiting")


def test_no_seat_field_is_written_through_the_admin(client, admin_user):
    table = gameplay_services.play_now(user=make_user("ana"), game="americana")
    seat = Seat.objects.get(table=table, position=0)
    client.force_login(admin_user)
    change = reverse("admin:tables_seat_change", args=[seat.pk])
    assert 'name="taken_over_at_0"' not in client.get(change).text
    response = client.post(
        change, {"taken_over_at_0": "2000-01-01", "taken_over_at_1": "10:00:00", "is_taken_over": "on"}
    )
    assert response.status_code == 403
    seat.refresh_from_db()
    assert seat.taken_over_at is None and not seat.is_taken_over
