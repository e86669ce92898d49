"""The one writer of access tokens: made by a person for themselves or one of their bot accounts, shown
once and kept as a digest, refused once revoked or expired, and spent from per request.

A token is 32 random bytes: a plain SHA-256 of it is as safe to keep as a slow password hash would be
(nobody can guess such a token from its digest), and it lets a request find its token by one indexed
lookup."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import limits
from accounts.models import open_bot_accounts

from .models import AccessToken, Scope

PREFIX = "sep_"
"""Every token starts so: a secret scanner (or a person reading a config file) can tell what it is."""
SHOWN_LENGTH = 12
"""How much of a token the pages show to tell tokens apart (the prefix and 8 random characters)."""
EXPIRY_DAYS = (30, 90, 365)
"""The lifetimes a person may choose."""
LAST_USE_STEP = timedelta(minutes=1)
"""A token's last use is written at most this often: a program may call many times a second."""
BOT_ONLY = frozenset({Scope.BOT})
"""Scopes only a bot account's token may carry."""


class TokenError(Exception):
    """Why a token cannot be made or used, in the reader's language; ``status`` is the HTTP answer and
    ``wait`` the seconds to wait before trying again (a budget ran out)."""

    def __init__(self, message: str, status: int = 400, wait: float = 0.0):
        super().__init__(message)
        self.status = status
        self.wait = wait


@dataclass(frozen=True)
class Made:
    """A new token and the secret itself, which exists only in this answer."""

    token: AccessToken
    secret: str


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def holders_for(owner) -> list:
    """Whom ``owner`` may make tokens for: themselves, then their open bot accounts not banned."""
    return [owner, *open_bot_accounts(owner).filter(is_active=True)]


def token_create(
    *, owner, holder_id: int, name: str, scopes: list[str], days: int, address: str | None = None
) -> Made:
    """A token acting as ``holder_id`` (``owner`` or one of their bot accounts), spending the owner's
    daily budget before it is made."""
    name = name.strip()
    if not name or len(name) > 60:
        raise TokenError(_("Give the token a name of 1 to 60 characters, to know it by."))
    if days not in EXPIRY_DAYS:
        raise TokenError(_("Choose a token's life of 30, 90 or 365 days."))
    wanted = set(scopes)
    if not wanted or not wanted <= set(Scope.values):
        raise TokenError(_("Choose at least one of the scopes read, play and bot."))
    if owner.is_bot_account:
        raise TokenError(_("A bot account's tokens are made by the person who runs it."), status=403)
    holder = next((user for user in holders_for(owner) if user.pk == holder_id), None)
    if holder is None:
        raise TokenError(_("You may make tokens for yourself and your own bot accounts only."), status=403)
    if wanted & BOT_ONLY and not holder.is_bot_account:
        raise TokenError(_("Only a bot account's token may have the bot scope."))
    if shortfall := limits.spend_person_and_address(
        "api-tokens",
        owner.pk,
        address,
        count=settings.API_TOKENS_MADE_PER_DAY,
        address_count=2 * settings.API_TOKENS_MADE_PER_DAY,
        seconds=86400,
        refusal=_("You have made as many tokens as a day allows: try again tomorrow."),
        address_refusal=_("Many tokens were made from your network today: try again tomorrow."),
    ):
        raise TokenError(shortfall.said, status=429, wait=shortfall.wait)
    secret = PREFIX + secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        get_user_model().objects.select_for_update(no_key=True).filter(pk=owner.pk).first()
        if live_tokens(owner).count() >= settings.API_TOKENS_HELD:
            raise TokenError(
                _("You hold %(count)d live tokens, as many as allowed: revoke one you no longer use.")
                % {"count": settings.API_TOKENS_HELD}
            )
        token = AccessToken.objects.create(
            owner=owner,
            holder=holder,
            name=name,
            scopes=sorted(wanted),
            prefix=secret[:SHOWN_LENGTH],
            digest=digest_of(secret),
            expires_at=now + timedelta(days=days),
        )
    return Made(token, secret)


def live_tokens(owner):
    """``owner``'s tokens neither revoked nor expired."""
    return AccessToken.objects.filter(owner=owner, revoked_at__isnull=True, expires_at__gt=timezone.now())


def token_revoke(*, by, token_id: int) -> AccessToken:
    """Revoke one of ``by``'s tokens: it is refused from the next request on. Revoking twice is fine."""
    token = AccessToken.objects.filter(pk=token_id, owner=by).first()
    if token is None:
        raise TokenError(_("There is no such token of yours."), status=404)
    return _revoked(token)


def token_revoke_as_moderator(*, moderator, token_id: int) -> AccessToken:
    """A moderator revokes a token (a program abusing the site); never one of their own or their bots'."""
    token = AccessToken.objects.select_related("owner").filter(pk=token_id).first()
    if token is None:
        raise TokenError(_("There is no such token."), status=404)
    if token.owner_id == moderator.pk:
        raise TokenError(
            _("A moderator does not act on their own tokens here: revoke it on your tokens page."), 403
        )
    return _revoked(token)


def _revoked(token: AccessToken) -> AccessToken:
    """``token`` revoked now, unless it was already (its first revocation's time stands)."""
    AccessToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db()
    return token


def authenticate(secret: str) -> AccessToken:
    """The live token whose secret this is, with its holder and owner; ``TokenError`` (401) when it is
    unknown, revoked or expired, or its holder's account is closed or banned."""
    token = (
        AccessToken.objects.select_related("holder", "owner").filter(digest=digest_of(secret)).first()
        if secret.startswith(PREFIX)
        else None
    )
    if token is None:
        raise TokenError(_("This token is unknown."), status=401)
    if token.revoked_at is not None:
        raise TokenError(_("This token was revoked."), status=401)
    now = timezone.now()
    if token.expires_at <= now:
        raise TokenError(_("This token has expired: make a new one on your tokens page."), status=401)
    for user in (token.holder, token.owner):
        if not user.is_active or user.erased_at is not None:
            raise TokenError(_("This token's account is closed or suspended."), status=401)
    if token.last_used_at is None or now - token.last_used_at >= LAST_USE_STEP:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def require_scope(token: AccessToken, scope: str) -> None:
    if scope not in token.scopes:
        raise TokenError(_("This token lacks the %(scope)s scope.") % {"scope": scope}, status=403)


def spend_request(*, token: AccessToken | None, address: str, cost: float = 1.0) -> None:
    """One request's budgets, spent before any work: the token's, its owner's (all their tokens and their
    bots' together) and the address's; without a token, the address's smaller anonymous one."""
    per_minute = 60.0
    if token is None:
        budgets = [
            limits.Budget.per(
                f"api:anon:{address}",
                settings.API_ANONYMOUS_REQUESTS_PER_MINUTE,
                per_minute,
                _("Too many requests without a token from your address: wait, or use a token."),
            )
        ]
    else:
        refusal = _("Too many requests: wait before the next one.")
        budgets = [
            limits.Budget.per(f"api:token:{token.pk}", settings.API_REQUESTS_PER_MINUTE, per_minute, refusal),
            limits.Budget.per(
                f"api:person:{token.owner_id}", settings.API_PERSON_REQUESTS_PER_MINUTE, per_minute, refusal
            ),
            limits.Budget.per(
                f"api:addr:{address}", settings.API_ADDRESS_REQUESTS_PER_MINUTE, per_minute, refusal
            ),
        ]
    _spend(*budgets, cost=cost)


def _spend(*budgets: limits.Budget, cost: float = 1.0) -> None:
    """Take ``cost`` from every one of ``budgets``, or refuse (429) with the one that ran out and how
    long to wait for it."""
    if shortfall := limits.spend_all(*budgets, cost=cost):
        raise TokenError(shortfall.said, status=429, wait=shortfall.wait)


def spend_records(*, token: AccessToken | None, address: str, count: int) -> None:
    """Match records read (one, or a page of one's own): the person's hourly budget, or without a token
    the address's. Reading every match is what the open data files are for."""
    key = f"api:records:{token.owner_id}" if token else f"api:records:addr:{address}"
    budget = limits.Budget.per(
        key,
        settings.API_MATCH_RECORDS_PER_HOUR,
        3600,
        _("You have read as many match records as an hour allows: the open data files hold every match."),
    )
    _spend(budget, cost=count)


def spend_table(*, token: AccessToken) -> None:
    budget = limits.Budget.per(
        f"api:tables:{token.owner_id}",
        settings.API_TABLES_PER_HOUR,
        3600,
        _("You have made as many tables as an hour allows: try again later."),
    )
    _spend(budget)


def person_forget(*, user_id: int) -> None:
    """A closed account's tokens go with it (those it made and those acting as it)."""
    AccessToken.objects.filter(Q(owner_id=user_id) | Q(holder_id=user_id)).delete()
