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
