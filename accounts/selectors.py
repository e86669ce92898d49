"""Reads about accounts that other apps ask: whether an account has earned rated play, a person's bot
accounts."""

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from .models import User, open_bot_accounts


def is_established(user: User, *, now: datetime | None = None) -> bool:
    """An account whose matches may be rated: active, its email confirmed, and at least
    ``RATED_MIN_ACCOUNT_AGE_SECONDS`` old."""
    established = established_from(user)
    return (
        user.is_active
        and user.erased_at is None
        and established is not None
        and established <= (now or timezone.now())
    )


def established_from(user: User) -> datetime | None:
    """When ``user``'s account becomes established (whether that is past or still to come); None while
    its email is unconfirmed. A bot account has no email: its owner's was confirmed to register it."""
    if user.email_confirmed_at is None and not user.is_bot_account:
        return None
    return user.date_joined + timedelta(seconds=settings.RATED_MIN_ACCOUNT_AGE_SECONDS)


def email_confirmed(*, user: User) -> bool:
    """Whether ``user`` has opened their confirmation link, read afresh: a page opened before the link
    was holds the row as it was then."""
    return User.objects.filter(pk=user.pk, email_confirmed_at__isnull=False).exists()


def still_active(*, user_id: int) -> bool:
    """Whether ``user_id`` may still act, read afresh: a ban's news to their open pages may be lost,
    so a page's every chat frame asks the row itself."""
    return User.objects.filter(pk=user_id, is_active=True, erased_at__isnull=True).exists()


def bot_account_named(username: str) -> User | None:
    """The open bot account of that name, whatever its case; None when there is none."""
    return User.objects.filter(username__iexact=username, is_bot_account=True, erased_at__isnull=True).first()


def bot_accounts_of(*, owner: User) -> list[User]:
    """The bot accounts ``owner`` runs and has not closed, oldest first."""
    return list(open_bot_accounts(owner))
