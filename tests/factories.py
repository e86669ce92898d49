"""Small builders shared by the tests."""

import time
from datetime import timedelta

from django.core import signing
from django.utils import timezone

from accounts.forms import FORM_SHOWN_SALT
from accounts.models import User

PASSWORD = "green-felt-table-42"


def make_user(username: str, *, fresh: bool = False, **extra) -> User:
    """An account with its email confirmed and old enough for rated play; ``fresh``: one registered
    just now that has not confirmed its email (a newcomer: casual play only)."""
    if not fresh:
        extra.setdefault("date_joined", timezone.now() - timedelta(days=7))
        extra.setdefault("email_confirmed_at", timezone.now() - timedelta(days=7))
    return User.objects.create_user(username, f"{username}@example.com", PASSWORD, **extra)


def registration_data(username: str, **fields: str) -> dict[str, str]:
    """What the registration form sends for a person who took a minute over it (the form's signed
    moment of showing, a minute ago, as the page would have given it)."""
    shown_at = signing.Signer(salt=FORM_SHOWN_SALT).sign(f"{time.time() - 60:.3f}")
    return {
        "username": username,
        "email": f"{username}@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "shown_at": shown_at,
        **fields,
    }
