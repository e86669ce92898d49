"""Account writes, and how the login limit (django-axes) names the client and the account."""

import ipaddress
from datetime import timedelta

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core import signing
from django.db import transaction
from django.http import HttpRequest
from django.template import loader
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import limits, moderators, signals
from .models import ReservedName, User, open_bot_accounts
from .tasks import send_email

ERASED_USERNAME = "~deleted-%d"
"""A closed account's username: unique, and not one registration accepts (it holds a "~")."""


def _browser_address(connection: str, forwarded: str) -> str:
    """Behind a proxy, the last address in its header ``forwarded`` (the one the proxy itself added;
    earlier ones the client may forge); else the ``connection``'s."""
    if settings.CLIENT_ADDRESS_HEADER:
        try:
            return str(ipaddress.ip_address(forwarded.split(",")[-1].strip()))
        except ValueError:
            pass  # no proxy in front after all: fall back on the connection's address
    return connection


def client_address(request: HttpRequest) -> str:
    """The browser's address, as the login limit and the per-address budgets count it."""
    forwarded = request.META.get(settings.CLIENT_ADDRESS_HEADER, "") if settings.CLIENT_ADDRESS_HEADER else ""
    return _browser_address(request.META.get("REMOTE_ADDR", ""), forwarded)


def socket_address(scope: dict) -> str:
    """The browser's address of a websocket (its ASGI ``scope``), counted as ``client_address`` counts
    a page's: the same header behind a proxy, else the connection's."""
    header = settings.CLIENT_ADDRESS_HEADER.removeprefix("HTTP_").lower().replace("_", "-").encode()
    forwarded = next(
        (value.decode("latin-1") for key, value in scope.get("headers", ()) if key == header), ""
    )
    return _browser_address((scope.get("client") or ("",))[0] or "", forwarded)


def login_username(request: HttpRequest, credentials: dict | None) -> str:
    """The account a login tries, whatever its case (usernames are unique regardless of case), cut to
    the longest a username can be."""
    return login_name((credentials or {}).get("username") or request.POST.get("username", ""))


def login_name(username: str) -> str:
    """A username as the login records (django-axes) keep it."""
    return username.casefold()[: User._meta.get_field("username").max_length]


def email_send_on_commit(*, subject: str, body: str, to: list[str], html: str | None = None) -> None:
    """Queue a mail for the worker once the current transaction (if any) commits."""
    transaction.on_commit(lambda: send_email.delay(subject, body, settings.DEFAULT_FROM_EMAIL, to, html))


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}


# --- Registration and the email address -------------------------------------------------------------


class AccountRefused(Exception):
    """A registration, a confirmation link or a mailing the rules refuse; the text is for the person."""


def registration_spend(*, address: str) -> None:
    """Spend one of ``address``'s registrations (``REGISTRATIONS_PER_ADDRESS_PER_HOUR``): call on every
    registration form sent, before any of its database work, so a script cannot mass-produce accounts."""
    _spend_hourly(
        f"register:{address}",
        settings.REGISTRATIONS_PER_ADDRESS_PER_HOUR,
        _("Too many accounts have been made from your network lately. Please try again in %(wait)s."),
    )


def _spend_hourly(key: str, per_hour: int, refusal: str) -> None:
    """Spend one of ``key``'s ``per_hour``, or refuse with ``refusal`` saying how long to wait."""
    if wait := limits.spend(key, rate=per_hour / 3600, burst=per_hour):
        raise AccountRefused(refusal % {"wait": _minutes(wait)})


@transaction.atomic
def user_register(*, username: str, email: str, password: str, origin: str) -> User:
    """A new account (unconfirmed: casual play and quick phrases only), mailed the link that confirms
    its address once this commits. ``origin``: the site's scheme and host, for the link."""
    user = User.objects.create_user(username, email, password)
    _confirmation_mail(user=user, origin=origin)
    return user


@transaction.atomic
def user_update_email(*, user: User, email: str, origin: str) -> bool:
    """Set ``user``'s address. A new one is unconfirmed until the link mailed to it is opened, and costs
    one of the person's mailings (``email_confirmation_send``). True when the address changed."""
    if email.casefold() == user.email.casefold():
        user.email = email
        user.save(update_fields=["email"])
        return False
    _spend_mailing(user)
    user.email = email
    user.email_confirmed_at = None
    user.save(update_fields=["email", "email_confirmed_at"])
    _confirmation_mail(user=user, origin=origin)
    return True


EMAIL_CONFIRMATION_SALT = "accounts.email-confirmation"
"""Keeps the confirmation links apart from every other signed value of the site."""


def _address_digest(email: str) -> str:
    """An address as a confirmation link names it: keyed, so the link does not show it."""
    return salted_hmac(EMAIL_CONFIRMATION_SALT, email.casefold(), algorithm="sha256").hexdigest()[:32]


def email_confirmation_token(user: User) -> str:
    """The signed, dated token of ``user``'s link: good for their current address only, until it is
    confirmed, for ``EMAIL_CONFIRMATION_LINK_HOURS``."""
    return signing.dumps([user.pk, _address_digest(user.email)], salt=EMAIL_CONFIRMATION_SALT)


def _spend_mailing(user: User) -> None:
    """Spend one of ``user``'s ``EMAIL_CONFIRMATION_SENDS_PER_HOUR``: a link goes to an address they
    typed, which may be somebody else's."""
    _spend_hourly(
        f"email-confirmation:{user.pk}",
        settings.EMAIL_CONFIRMATION_SENDS_PER_HOUR,
        _("Links have been mailed to you several times already. Please try again in %(wait)s."),
    )


def _confirmation_mail(*, user: User, origin: str) -> None:
    """Mail ``user`` their link, in the active language, once the current transaction commits."""
    context = {
        "name": user.username,
        "link": origin + reverse("accounts:email_confirm", args=[email_confirmation_token(user)]),
        "hours": round(settings.EMAIL_CONFIRMATION_LINK_HOURS),
    }
    subject = loader.render_to_string("accounts/email/confirm_email_subject.txt", context).strip()
    body = loader.render_to_string("accounts/email/confirm_email.txt", context)
    email_send_on_commit(subject=subject, body=body, to=[user.email])


def email_confirmation_send(*, user: User, origin: str) -> None:
    """Mail ``user`` a new link for their address (the profile's "send the link again"), budgeted."""
    if user.email_confirmed_at is not None:
        raise AccountRefused(_("Your email address is confirmed already."))
    _spend_mailing(user)
    _confirmation_mail(user=user, origin=origin)


@transaction.atomic
def email_confirm(*, token: str) -> User:
    """Confirm the address a mailed link was made for: refused when the link is forged, expired, used,
    or for an address the account no longer has."""
    try:
        user_id, digest = signing.loads(
            token,
            salt=EMAIL_CONFIRMATION_SALT,
            max_age=timedelta(hours=settings.EMAIL_CONFIRMATION_LINK_HOURS),
        )
    except signing.SignatureExpired:
        raise AccountRefused(_("This link has expired. Your profile page sends a new one.")) from None
    except signing.BadSignature:
        raise AccountRefused(_("This link is not valid. Your profile page sends a new one.")) from None
    user = User.objects.select_for_update().filter(pk=user_id).first()
    if user is None or not user.email or not constant_time_compare(_address_digest(user.email), digest):
        raise AccountRefused(_("This link is for an address the account no longer has."))
    if user.email_confirmed_at is not None:
        raise AccountRefused(_("This link has been used already: the address is confirmed."))
    user.email_confirmed_at = timezone.now()
    user.save(update_fields=["email_confirmed_at"])
    return user


# --- Bot accounts ------------------------------------------------------------------------------------


def _bot_registration_spend(owner: User, address: str | None) -> None:
    """Spend one of the owner's and their address's bot registrations of the day."""
    if shortfall := limits.spend_person_and_address(
        "bot-accounts",
        owner.pk,
        address,
        count=settings.BOT_REGISTRATIONS_PER_DAY,
        address_count=settings.BOT_REGISTRATIONS_PER_ADDRESS_PER_DAY,
        seconds=86400,
        refusal=_("You have registered as many bot accounts as a day allows: try again tomorrow."),
        address_refusal=_("Many bot accounts were registered from your network today: try again tomorrow."),
    ):
        raise AccountRefused(shortfall.said)


def bot_account_register(*, owner: User, username: str, description: str, address: str | None = None) -> User:
    """A new bot account run by ``owner``: no password (it plays through the API only, never logs in to
    the pages), no email. Only a person (not a bot account) with a confirmed email may register one,
    at most ``BOT_ACCOUNTS_PER_PERSON`` open at once, from a daily budget of theirs and their browser
    ``address``'s (None when not from a browser). ``username`` is checked by the caller's form, by the
    registration's rules; a name taken meanwhile is refused here too."""
    if owner.is_bot_account:
        raise AccountRefused(_("A bot account cannot register bot accounts."))
    if not owner.is_active or owner.erased_at or owner.email_confirmed_at is None:
        raise AccountRefused(_("Confirm your email address first: then you can register bot accounts."))
    _bot_registration_spend(owner, address)
    with transaction.atomic():
        User.objects.select_for_update().get(pk=owner.pk)  # two forms sent at once count one after the other
        if open_bot_accounts(owner).count() >= settings.BOT_ACCOUNTS_PER_PERSON:
            raise AccountRefused(
                ngettext(
                    "You already run %(count)d bot account, as many as a person may: close it first.",
                    "You already run %(count)d bot accounts, as many as a person may: close one first.",
                    settings.BOT_ACCOUNTS_PER_PERSON,
                )
                % {"count": settings.BOT_ACCOUNTS_PER_PERSON}
            )
        if User.objects.filter(username__iexact=username).exists() or username_reserved(username):
            raise AccountRefused(_("That username is taken. Please choose another."))
        bot = User(username=username, is_bot_account=True, bot_owner=owner, bot_description=description)
        bot.set_unusable_password()
        bot.save()
    return bot


class BanRefused(Exception):
    """A ban or a reinstatement the rules refuse; the text is for the moderator."""


def _locked_for(*, user: User, by: User) -> User:
    """``user``'s row, locked, once the rules allow ``by`` to ban or reinstate them: nobody themselves (a
    moderator's slip would lock them out), and staff only by a superuser. Read from the row as it is now,
    not from a list loaded before the person was made staff."""
    if user.pk == by.pk:
        raise BanRefused(moderators.own_case_refusal())
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
    live pages: the one way a ban is made, so every door applies the same rules and reactions. The bot
    accounts they run are banned with them (nobody is left to answer for them); reinstating the person
    leaves those to be reinstated one by one."""
    locked = _locked_for(user=user, by=by)
    if not locked.is_active:
        return False
    banned = [locked.pk, *open_bot_accounts(locked).filter(is_active=True).values_list("pk", flat=True)]
    User.objects.filter(pk__in=banned).update(is_active=False)
    locked.is_active = user.is_active = False
    for user_id in banned:
        transaction.on_commit(lambda user_id=user_id: signals.user_banned.send(sender=User, user_id=user_id))
    return True


@transaction.atomic(durable=True)
def user_shut_out(*, user: User) -> None:
    """The first step of closing an account: the person can no longer log in or sit down, and once
    this commits ``signals.user_banned`` hands their seats to bots and closes their live pages, as a
    ban does (a running match goes on with a stand-in bot before anything is erased)."""
    locked = User.objects.select_for_update().get(pk=user.pk)
    locked.is_active = user.is_active = False
    locked.save(update_fields=["is_active"])
    transaction.on_commit(lambda: signals.user_banned.send(sender=User, user_id=locked.pk))


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


# --- Closing an account ------------------------------------------------------------------------------


def _name_digest(username: str) -> str:
    """A name as the reservation keeps it: a digest keyed by the site's secret, whatever its case."""
    return salted_hmac("accounts.reserved-name", username.casefold(), algorithm="sha256").hexdigest()


def username_reserved(username: str) -> bool:
    """Whether ``username`` belonged to an account closed too recently for anyone to take it."""
    return ReservedName.objects.filter(digest=_name_digest(username), until__gt=timezone.now()).exists()


def sessions_end(user_id: int) -> int:
    """Delete every session logged in as ``user_id`` (on every device); how many there were."""
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator(chunk_size=2000)
        if session.get_decoded().get("_auth_user_id") == str(user_id)
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)


def user_erase(*, user: User) -> bool:
    """Empty a closed account's row for good, inside the caller's transaction: the username becomes
    ``ERASED_USERNAME`` (others read "a deleted player") and is reserved for
    ``ERASED_NAME_RESERVED_DAYS``; email, names, password, privileges, sessions and login records go.
    The row stays, so the matches it played stay whole. True when this call emptied it (erasing the
    erased changes nothing)."""
    locked = User.objects.select_for_update().get(pk=user.pk)
    if locked.erased_at:
        return False
    now = timezone.now()
    ReservedName.objects.update_or_create(
        digest=_name_digest(locked.username),
        defaults={"until": now + timedelta(days=settings.ERASED_NAME_RESERVED_DAYS)},
    )
    for record in (AccessAttempt, AccessFailureLog, AccessLog):
        record.objects.filter(username=login_name(locked.username)).delete()
    locked.username = ERASED_USERNAME % locked.pk
    locked.email = locked.first_name = locked.last_name = ""
    locked.set_unusable_password()
    locked.is_active = locked.is_staff = locked.is_superuser = False
    locked.last_login = None
    locked.erased_at = now
    locked.save()
    locked.groups.clear()
    locked.user_permissions.clear()
    sessions_end(locked.pk)
    return True


# --- Kept no longer than the privacy page says -------------------------------------------------------


def login_records_forget_old() -> tuple[int, int]:
    """Delete successful logins older than ``LOGIN_RECORD_KEEP_DAYS`` and failed attempts older than
    ``FAILED_LOGIN_KEEP_DAYS``; how many of each went."""
    now = timezone.now()
    logins = AccessLog.objects.filter(attempt_time__lt=now - timedelta(days=settings.LOGIN_RECORD_KEEP_DAYS))
    failed_before = now - timedelta(days=settings.FAILED_LOGIN_KEEP_DAYS)
    failed = AccessAttempt.objects.filter(attempt_time__lt=failed_before).delete()[0]
    failed += AccessFailureLog.objects.filter(attempt_time__lt=failed_before).delete()[0]
    return logins.delete()[0], failed


def sessions_forget_expired() -> int:
    """Delete the sessions past their expiry (what Django's ``clearsessions`` does)."""
    return Session.objects.filter(expire_date__lt=timezone.now()).delete()[0]


def reserved_names_forget_lapsed() -> int:
    """Delete the name reservations whose time is up: the names may be registered again."""
    return ReservedName.objects.filter(until__lt=timezone.now()).delete()[0]
