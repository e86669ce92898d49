"""Moderators (a group made by a migration) ban, close, abort and replace in the admin, and cannot
grant anyone, themselves included, a privilege."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse
from django.utils import timezone

from accounts import moderators
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


def test_the_group_holds_exactly_the_grant_in_the_code(moderator):
    """The migrations leave the group with ``accounts.moderators.PERMISSIONS``, no more (the earlier
    migrations' reading of friendships, requests, blocks and notices is taken back), no less."""
    granted = set(
        Group.objects.get(name=moderators.GROUP).permissions.values_list(
            "content_type__app_label", "codename"
        )
    )
    assert granted == set(moderators.PERMISSIONS)
    assert not granted & {
        ("social", "view_friendrequest"),
        ("social", "view_block"),
        ("social", "view_notice"),
    }


def test_every_duty_on_the_privacy_page_is_a_granted_right_that_is_not_reading():
    doing = {permission for permission in moderators.PERMISSIONS if not permission[1].startswith("view_")}
    assert set(moderators.DUTIES) == doing


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
    assert ana.username in page and ana.email not in page, "the account, without its address"
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


def test_a_moderator_sees_no_email_address_anywhere_in_the_users_admin(mod_client, ana, client):
    users = reverse("admin:accounts_user_changelist")
    for page in (
        mod_client.get(users).text,
        mod_client.get(users, {"q": "ana"}).text,
        mod_client.get(reverse("admin:accounts_user_change", args=[ana.pk])).text,
    ):
        assert "ana" in page and "@example.com" not in page
    by_address = mod_client.get(users, {"q": "ana@example.com"}).text
    assert reverse("admin:accounts_user_change", args=[ana.pk]) not in by_address
    client.force_login(User.objects.create_superuser("boss", "boss@example.com", PASSWORD))
    assert ana.email in client.get(users).text, "a superuser still reads the addresses"


def test_a_moderator_sees_no_invitation_token_and_no_friendship_block_or_notice(mod_client, ana, ion):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=True
    )
    for page in (
        reverse("admin:tables_table_changelist"),
        reverse("admin:tables_table_change", args=[table.pk]),
        reverse("admin:tables_seat_changelist"),
    ):
        response = mod_client.get(page)
        assert response.status_code == 200 and table.invite_token not in response.text
    index = mod_client.get(reverse("admin:index")).text
    assert "/admin/social/poolentry/" in index
    for model in ("friendship", "friendrequest", "block", "notice"):
        assert f"/admin/social/{model}/" not in index
        assert mod_client.get(f"/admin/social/{model}/").status_code == 403
    assert "/admin/privacy/dataexport/" not in index


def test_moderation_records_are_named_by_id_only(db):
    """The admin log keeps a record's name for ever: no username, no chat text in it."""
    from chat import services as chat_services
    from chat.models import ChatMessage, Ignore, ModerationAction, Report, Suspension
    from social.models import Block, FriendRequest, Friendship, Notice, PoolEntry

    ana, ion = make_user("zamfira"), make_user("gheorghita")

    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    line = ChatMessage.objects.create(table=table, room="watchers", author=ana, text="secret-words")
    boss = make_user("boss", is_staff=True, is_superuser=True)
    records = [
        line,
        Report.objects.create(message=line, reporter=ion, reason="abuse"),
        Ignore.objects.create(person=ion, ignored=ana),
        chat_services.chat_suspend(subject_id=ana.pk, by=boss, reason="secret-words", length="1h"),
        Friendship.objects.create(person=ana, friend=ion),
        FriendRequest.objects.create(sender=ana, recipient=ion),
        Block.objects.create(blocker=ana, blocked=ion),
        Notice.objects.create(recipient=ion, sender=ana, kind=Notice.Kind.FRIEND_REQUEST),
        PoolEntry.objects.create(
            user=ana,
            game="americana",
            options={"players": 2},
            pool="americana",
            rating=1500,
            joined_at=timezone.now(),
            seen_at=timezone.now(),
        ),
    ]
    records.append(ModerationAction.objects.get(kind=ModerationAction.Kind.SUSPEND))
    assert Suspension.objects.filter(user=ana).exists()
    for record in records:
        name = str(record)
        assert name.endswith(f"#{record.pk}"), name
        assert "zamfira" not in name and "gheorghita" not in name and "secret" not in name, name


def test_the_admin_log_of_a_moderators_actions_names_no_player_and_quotes_no_line(mod_client):
    """Django's admin log keeps what it is given for ever: a record's name and the change's message."""
    from django.contrib.admin.models import LogEntry

    from chat.models import ChatMessage, Report

    zamfira, gheorghita = make_user("zamfira"), make_user("gheorghita")
    table = started_table(zamfira, gheorghita)
    run_action(
        mod_client, "admin:tables_seat_changelist", "replace_with_bot", table.seats.get(user=gheorghita).pk
    )
    line = ChatMessage.objects.create(
        table=table, room="players", author=zamfira, text="secret-words", shown="secret-words"
    )
    report = Report.objects.create(message=line, reporter=gheorghita, reason=Report.Reason.ABUSE)
    decided = mod_client.post(
        reverse("admin:chat_report_change", args=[report.pk]), {"decision": "remove", "reason": "insulte"}
    )
    assert decided.status_code == 302
    logged = list(LogEntry.objects.values_list("object_repr", "change_message"))
    assert len(logged) == 2
    for text in (part for entry in logged for part in entry):
        assert "zamfira" not in text and "gheorghita" not in text and "secret" not in text, logged


def test_the_grant_leaves_a_later_apps_rights_to_that_apps_migration_and_refuses_a_typo(db, monkeypatch):
    """On a fresh database the grant runs at migration 0005, before any model a later migration makes:
    those rights wait for that migration's own run of ``grant``; a right no model has is an error."""
    from types import SimpleNamespace

    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    Permission.objects.filter(content_type__app_label="chat").delete()  # as before chat's migrations ran
    before_chat = MigrationLoader(connection).project_state(("accounts", "0004_user_email_confirmed_at")).apps
    editor = SimpleNamespace(connection=connection)
    moderators.grant(before_chat, editor)
    granted = set(
        Group.objects.get(name=moderators.GROUP).permissions.values_list(
            "content_type__app_label", "codename"
        )
    )
    assert granted == {right for right in moderators.PERMISSIONS if right[0] != "chat"}

    monkeypatch.setattr(moderators, "PERMISSIONS", (*moderators.PERMISSIONS, ("tables", "view_everything")))
    with pytest.raises(LookupError, match=r"tables\.view_everything"):
        moderators.grant(before_chat, editor)
