"""Account writes, and how the login limit (django-axes) names the client and the account."""

import ipaddress

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

from . import signals
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


class BanRefused(Exception):
    """A ban or a reinstatement the rules refuse; the text is for the moderator."""


def _locked_for(*, user: User, by: User) -> User:
    """``user``'s row, locked, once the rules allow ``by`` to ban or reinstate them: nobody themselves (a
    moderator's slip would lock them out), and staff only by a superuser. Read from the row as it is now,
    not from a list loaded before the person was made staff."""
    if user.pk == by.pk:
        raise BanRefused(_("Nobody can ban or reinstate themselves."))
    locked = User.objects.select_for_update().get(pk=user.pk)
    if (locked.is_staff or locked.is_superuser) and not by.is_superuser:
        raise BanRefused(
            _("Only a superuser can ban or reinstate %(name)s, a staff member.") % {"name": locked}
        )
    return locked


@transaction.atomic(durable=True)
def user_ban(*, user: User, by: User) -> bool:
    """Ban ``user`` on ``by``'s word: they cannot log in, and are logged out on their next request. True
    when this call banned them (banning the banned changes nothing). Once it commits,
    ``signals.user_banned`` tells the apps above, which take the person off their tables and close their
    live pages: the one way a ban is made, so every door applies the same rules and reactions."""
    locked = _locked_for(user=user, by=by)
    if not locked.is_active:
        return False
    locked.is_active = user.is_active = False
    locked.save(update_fields=["is_active"])
    transaction.on_commit(lambda: signals.user_banned.send(sender=User, user_id=locked.pk))
    return True


@transaction.atomic(durable=True)
def user_reinstate(*, user: User, by: User) -> bool:
    """Lift ``user``'s ban, by the same rules as ``user_ban``; True when this call lifted it. They log in
    again and sit down anew: their seats went to others when they were banned."""
    locked = _locked_for(user=user, by=by)
    if locked.is_active:
        return False
    locked.is_active = user.is_active = True
    locked.save(update_fields=["is_active"])
    return True
