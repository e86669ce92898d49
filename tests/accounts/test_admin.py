"""The User admin: search, filters and the deactivate (ban) action, which is logged."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.urls import reverse

from accounts.models import User


@pytest.fixture
def moderator(db) -> User:
    return User.objects.create_superuser("mod", "mod@example.com", "moderate-it-well-9")


def test_admin_searches_and_filters_users(client, moderator):
    User.objects.create_user("ana", "ana@example.com", "x-long-password-1")
    User.objects.create_user("ion", "ion@example.com", "x-long-password-1", is_active=False)
    client.force_login(moderator)
    changelist = reverse("admin:accounts_user_changelist")
    assert "ana" in client.get(changelist, {"q": "ana@"}).text
    filtered = client.get(changelist, {"is_active__exact": "0"}).text
    assert "ion@example.com" in filtered
    assert "ana@example.com" not in filtered


def test_deactivate_action_bans_and_leaves_an_admin_log_entry(client, moderator):
    ana = User.objects.create_user("ana", "ana@example.com", "x-long-password-1")
    client.force_login(moderator)
    response = client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "deactivate", "_selected_action": [ana.pk, moderator.pk]},
        follow=True,
    )
    assert response.status_code == 200
    ana.refresh_from_db()
    moderator.refresh_from_db()
    assert not ana.is_active
    assert moderator.is_active, "a moderator cannot ban themselves by accident"
    entry = LogEntry.objects.get(object_id=str(ana.pk))
    assert entry.action_flag == CHANGE
    assert entry.user == moderator


def test_a_banned_player_is_logged_out_on_the_next_request(client, moderator):
    ana = User.objects.create_user("ana", "ana@example.com", "x-long-password-1")
    client.force_login(ana)
    assert client.get(reverse("accounts:profile")).status_code == 200
    ana.is_active = False
    ana.save()
    assert client.get(reverse("accounts:profile")).status_code == 302


def change_form(user: User, **changes) -> dict:
    """The user change form as a superuser posts it, with ``changes``."""
    return {
        "username": user.username,
        "email": user.email,
        "first_name": "",
        "last_name": "",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "10:00:00",
        "last_login_0": "",
        "last_login_1": "",
        **changes,
    }


def test_a_superuser_changes_a_players_username_email_and_password(client, moderator):
    ana = User.objects.create_user("ana", "ana@example.com", "x-long-password-1")
    client.force_login(moderator)
    change = reverse("admin:accounts_user_change", args=[ana.pk])
    response = client.post(change, change_form(ana, username="anna", email="anna@example.com"))
    assert response.status_code == 302
    password_page = reverse("admin:auth_user_password_change", args=[ana.pk])
    response = client.post(password_page, {"password1": "a-new-one-77x", "password2": "a-new-one-77x"})
    assert response.status_code == 302
    ana.refresh_from_db()
    assert (ana.username, ana.email) == ("anna", "anna@example.com")
    assert ana.check_password("a-new-one-77x")


def test_the_change_form_never_bans_or_reinstates(client, moderator):
    """A ban goes through the ban service (its rules, the bot in the seat, the pages closed): the form's
    ``is_active`` is read-only, for a superuser too."""
    ana = User.objects.create_user("ana", "ana@example.com", "x-long-password-1")
    ion = User.objects.create_user("ion", "ion@example.com", "x-long-password-1", is_active=False)
    client.force_login(moderator)
    page = client.get(reverse("admin:accounts_user_change", args=[ana.pk])).text
    assert 'name="is_active"' not in page
    for user, posted in ((ana, {}), (ion, {"is_active": "on"})):
        response = client.post(
            reverse("admin:accounts_user_change", args=[user.pk]), change_form(user, **posted)
        )
        assert response.status_code == 302
    ana.refresh_from_db()
    ion.refresh_from_db()
    assert ana.is_active and not ion.is_active


def test_each_ban_and_reinstatement_is_logged_with_who_and_why(client, moderator):
    ana = User.objects.create_user("ana", "ana@example.com", "x-long-password-1")
    client.force_login(moderator)
    changelist = reverse("admin:accounts_user_changelist")
    for action in ("deactivate", "deactivate", "reactivate"):
        client.post(changelist, {"action": action, "_selected_action": [ana.pk]})
    entries = LogEntry.objects.filter(object_id=str(ana.pk)).order_by("action_time")
    assert [(entry.user, entry.get_change_message()) for entry in entries] == [
        (moderator, "Banned from the list of users."),
        (moderator, "Reinstated."),
    ], "banning the banned again changes nothing and logs nothing"
