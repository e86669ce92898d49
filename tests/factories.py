"""Small builders shared by the tests."""

from datetime import timedelta

from django.utils import timezone

from accounts.models import User

PASSWORD = "green-felt-table-42"


def make_user(username: str, *, fresh: bool = False, **extra) -> User:
    """An account with its email confirmed and old enough for rated play; ``fresh``: one registered
    just now that has not confirmed its email (a newcomer: casual play only)."""
    if not fresh:
        extra.setdefault("date_joined", timezone.now() - timedelta(days=7))
        extra.setdefault("email_confirmed_at", timezone.now() - timedelta(days=7))
    return User.objects.create_user(username, f"{username}@example.com", PASSWORD, **extra)
