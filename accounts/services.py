"""Account writes, and how the login limit (django-axes) names the client and the account."""

import ipaddress

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest

from .models import User
from .tasks import send_email


def client_address(request: HttpRequest) -> str:
    """The browser's address, as the login limit counts it. Behind a proxy, the last address in
    ``CLIENT_ADDRESS_HEADER`` (the one the proxy itself added; earlier ones the client may forge)."""
    if settings.CLIENT_ADDRESS_HEADER:
        forwarded = request.META.get(settings.CLIENT_ADDRESS_HEADER, "").split(",")
        try:
            return str(ipaddress.ip_address(forwarded[-1].strip()))
        except ValueError:
            pass  # no proxy in front after all: fall back on the connection's address
    return request.META.get("REMOTE_ADDR", "")


def login_username(request: HttpRequest, credentials: dict | None) -> str:
    """The account a login tries, whatever its case (usernames are unique regardless of case), cut to
    the longest a username can be."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    return username.casefold()[: User._meta.get_field("username").max_length]


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
