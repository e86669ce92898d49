"""Small builders shared by the tests."""

import functools
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, Permission
from django.core import signing
from django.utils import timezone

from accounts import moderators
from accounts.forms import FORM_SHOWN_SALT
from accounts.models import User

PASSWORD = "green-felt-table-42"


@functools.cache
def password_hash(hashers: tuple[str, ...]) -> str:
    """``PASSWORD`` hashed once per set of hashers: the real hasher takes a third of a second on
    purpose, and hundreds of tests make accounts that all log in with the same password."""
    return make_password(PASSWORD)


def make_user(username: str, *, fresh: bool = False, **extra) -> User:
    """An account with its email confirmed and old enough for rated play; ``fresh``: one registered
    just now that has not confirmed its email (a newcomer: casual play only). Its password is
    ``PASSWORD``, as ``create_user`` would store it."""
    if not fresh:
        extra.setdefault("date_joined", timezone.now() - timedelta(days=7))
        extra.setdefault("email_confirmed_at", timezone.now() - timedelta(days=7))
    user = User(username=User.normalize_username(username), email=f"{username}@example.com", **extra)
    user.password = password_hash(tuple(settings.PASSWORD_HASHERS))
    user.save()
    return user


def make_moderator(username: str = "mod") -> User:
    """Staff in the Moderators group, with the group's grant (``accounts.moderators``). A test that
    commits empties the data the migrations made, the group with it: it is made again here."""
    group, _created = Group.objects.get_or_create(name=moderators.GROUP)
    group.permissions.set(
        [
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
            for app_label, codename in moderators.granted()
        ]
    )
    user = make_user(username, is_staff=True)
    user.groups.add(group)
    return user


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
