"""Account writes and the login rate limit."""

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from .models import User
from .tasks import send_email


def _attempts_key(*, username: str, address: str) -> str:
    return f"login-failures:{username.casefold()}:{address}"


def login_attempts_exceeded(*, username: str, address: str) -> bool:
    """True once this account has failed too often from this address within the window."""
    return cache.get(_attempts_key(username=username, address=address), 0) >= settings.LOGIN_ATTEMPTS_LIMIT


def login_failure_record(*, username: str, address: str) -> None:
    key = _attempts_key(username=username, address=address)
    cache.add(key, 0, timeout=settings.LOGIN_ATTEMPTS_WINDOW)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=settings.LOGIN_ATTEMPTS_WINDOW)


def login_failures_clear(*, username: str, address: str) -> None:
    cache.delete(_attempts_key(username=username, address=address))


def email_send_on_commit(*, subject: str, body: str, to: list[str], html: str | None = None) -> None:
    """Queue a mail for the worker once the current transaction (if any) commits."""
    transaction.on_commit(lambda: send_email.delay(subject, body, settings.DEFAULT_FROM_EMAIL, to, html))


def user_update_email(*, user: User, email: str) -> User:
    user.email = email
    user.save(update_fields=["email"])
    return user


def user_set_active(*, user: User, active: bool) -> User:
    """Ban (``active=False``) or reinstate a player; a banned player is logged out on their next request."""
    user.is_active = active
    user.save(update_fields=["is_active"])
    return user
