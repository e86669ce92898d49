"""Moderators (a group made by a migration) ban, close, abort and replace in the admin, and cannot
grant anyone, themselves included, a privilege."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from accounts.models import User
from gameplay import services as gameplay_services
from gameplay.models import Match
from tables import services as table_services
from tables.models import Table
from tests.factories import PASSWORD, make_user

PRIVILEGE_FIELDS = ("is_staff", "is_superuser", "groups", "user_permissions")


@pytest.fixture
def moderator(db) -> User:
    user = make_user("mod", is_staff=True)
    user.groups.add(Group.objects.get(name="Moderators"))
    return user


@pytest.fixture
def mod_client(client, moderator):
    """The moderator, logged in through the admin's login form."""
    response = client.post(
        reverse("admin:login"), {"username": "mod", "password": PASSWORD, "next": "/admin/"}
    )
    assert response.status_code == 302 and "_auth_user_id" in client.session
    return client


def run_action(client, changelist: str, action: str, *pks: int):
    response = client.post(reverse(changelist), {"action": action, "_selected_action": list(pks)})
    assert response.status_code == 302, response.text[:500]


def started_table(host: User, other: User) -> Table:
    table = gameplay_services.table_create(
        host=host, game="americana", options={"players": 3}, turn_clock=45, is_private=False
    )
    table_services.seat_take(table_id=table.pk, user=other)
    table_services.bot_add(table_id=table.pk, by=host, position=2, level="easy")
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    return table


def test_the_group_holds_exactly_what_moderation_needs(moderator):
    codenames = set(Group.objects.get(name="Moderators").permissions.values_list("codename", flat=True))
    assert codenames == {
        "view_user",
        "change_user",
        "view_table",
        "change_table",
        "view_seat",
        "change_seat",
        "view_match",
        "change_match",
        "view_move",
        "view_roundresult",
        "view_rating",
        "view_ratingchange",
        "view_ratedmatch",
        "void_ratedmatch",
        "view_poolentry",
        "view_friendrequest",
        "view_block",
        "view_notice",
        "view_chatmessage",
        "view_report",
        "change_report",
        "view_suspension",
        "view_moderationaction",
        "view_bannedword",
        "add_bannedword",
        "delete_bannedword",
        "moderate_chat",
    }


def test_a_moderator_bans_a_player(mod_client, ana):
    run_action(mod_client, "admin:accounts_user_changelist", "deactivate", ana.pk)
    ana.refresh_from_db()
    assert not ana.is_active


def test_a_moderator_cannot_ban_an_administrator(mod_client, db):
    boss = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    run_action(mod_client, "admin:accounts_user_changelist", "deactivate", boss.pk)
    boss.refresh_from_db()
    assert boss.is_active


def test_a_moderator_closes_a_table(mod_client, ana):
    table = gameplay_services.table_create(
        host=ana, game="classic", options={}, turn_clock=45, is_private=False
    )
    run_action(mod_client, "admin:tables_table_changelist", "close_tables", table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_a_moderator_aborts_a_match(mod_client, ana, ion):
    table = started_table(ana, ion)
    match = Match.objects.get(table=table)
    run_action(mod_client, "admin:gameplay_match_changelist", "abort_matches", match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED


def test_a_moderator_replaces_a_player_with_a_bot_and_bans_from_a_seat(mod_client, ana, ion):
    table = started_table(ana, ion)
    ion_seat = table.seats.get(user=ion)
    run_action(mod_client, "admin:tables_seat_changelist", "replace_with_bot", ion_seat.pk)
    ion_seat.refresh_from_db()
    assert ion_seat.user is None and ion_seat.bot_level == "normal"
    ana_seat = table.seats.get(user=ana)
    run_action(mod_client, "admin:tables_seat_changelist", "deactivate_players", ana_seat.pk)
    ana.refresh_from_db()
    assert not ana.is_active


def change_form_post(user: User, group: Group) -> dict:
    return {
        "username": user.username,
        "email": f"changed-{user.username}@example.com",
        "first_name": "",
        "last_name": "",
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "10:00:00",
        "last_login_0": "",
        "last_login_1": "",
        "is_staff": "on",
        "is_superuser": "on",
        "groups": [group.pk],
        "user_permissions": [Permission.objects.get(codename="delete_user").pk],
    }


def test_a_moderator_reads_a_players_account_and_cannot_change_it(mod_client, ana):
    """Not the email least of all: a moderator who set it to their own could then reset the password."""
    change = reverse("admin:accounts_user_change", args=[ana.pk])
    page = mod_client.get(change).text
    assert ana.email in page, "the moderator does see the account"
    for field in ("username", "email", "is_active", "password", *PRIVILEGE_FIELDS):
        assert f'name="{field}"' not in page
    assert 'name="_save"' not in page
    admins = Group.objects.create(name="Admins")
    assert mod_client.post(change, change_form_post(ana, admins)).status_code == 403
    ana.refresh_from_db()
    assert (ana.username, ana.email) == ("ana", "ana@example.com")
    assert not ana.is_staff and not ana.is_superuser
    assert not ana.groups.exists() and not ana.user_permissions.exists()


def test_a_moderator_cannot_set_a_players_password(mod_client, ana):
    password_page = reverse("admin:auth_user_password_change", args=[ana.pk])
    assert mod_client.get(password_page).status_code == 403
    response = mod_client.post(password_page, {"password1": "taken-over-9x", "password2": "taken-over-9x"})
    assert response.status_code == 403
    ana.refresh_from_db()
    assert ana.check_password(PASSWORD) and not ana.check_password("taken-over-9x")


def test_a_moderator_reinstates_a_player_but_not_a_staff_member(mod_client, ana):
    helper = make_user("helper", is_staff=True, is_active=False)
    ana.is_active = False
    ana.save()
    run_action(mod_client, "admin:accounts_user_changelist", "reactivate", ana.pk, helper.pk)
    ana.refresh_from_db()
    helper.refresh_from_db()
    assert ana.is_active and not helper.is_active


def test_a_moderator_cannot_ban_a_staff_member_from_their_seat(mod_client, moderator, ion):
    helper = make_user("helper", is_staff=True)
    table = started_table(helper, ion)
    seats = table.seats.filter(user__in=[helper, ion]).values_list("pk", flat=True)
    run_action(mod_client, "admin:tables_seat_changelist", "deactivate_players", *seats)
    helper.refresh_from_db()
    ion.refresh_from_db()
    assert helper.is_active, "a moderator bans players, not staff"
    assert not ion.is_active


def test_a_moderator_cannot_raise_themselves_or_take_over_a_staff_account(mod_client, moderator, db):
    own_change = reverse("admin:accounts_user_change", args=[moderator.pk])
    page = mod_client.get(own_change).text
    for field in PRIVILEGE_FIELDS:
        assert f'name="{field}"' not in page
    mod_client.post(own_change, change_form_post(moderator, Group.objects.create(name="Admins")))
    moderator.refresh_from_db()
    assert not moderator.is_superuser
    assert list(moderator.groups.values_list("name", flat=True)) == ["Moderators"]
    assert not moderator.user_permissions.exists()

    boss = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    password_page = reverse("admin:auth_user_password_change", args=[boss.pk])
    response = mod_client.post(password_page, {"password1": "taken-over-9x", "password2": "taken-over-9x"})
    assert response.status_code == 403
    boss.refresh_from_db()
    assert boss.check_password(PASSWORD)


def test_a_superuser_still_grants_privileges(client, ana):
    client.force_login(User.objects.create_superuser("boss", "boss@example.com", PASSWORD))
    change = reverse("admin:accounts_user_change", args=[ana.pk])
    assert 'name="is_superuser"' in client.get(change).text
    moderators = Group.objects.get(name="Moderators")
    response = client.post(change, change_form_post(ana, moderators))
    assert response.status_code == 302
    ana.refresh_from_db()
    assert ana.is_staff and ana.is_superuser and ana.groups.filter(name="Moderators").exists()
