"""Moderation in Django admin: every action works and leaves an admin log entry."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from gameplay import services as gameplay_services
from gameplay.models import Match
from tables import services
from tables.models import Seat, Table
from tests.factories import make_user


@pytest.fixture
def moderator(db):
    return make_user("mod", is_staff=True, is_superuser=True)


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
    assert LogEntry.objects.filter(object_id=str(ana.pk), content_type__model="user").exists()
