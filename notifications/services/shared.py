"""What the notifications' jobs share: the stated periods and the language a person is written in."""

from datetime import timedelta

from django.conf import settings

from ..models import Preference

RETRY_AT_MOST = timedelta(hours=6)


def email_period() -> timedelta:
    """At most one email of a kind to a person in this long."""
    return timedelta(minutes=settings.NOTIFY_EMAIL_PERIOD_MINUTES)


def retry_after(attempts: int) -> timedelta:
    """How long after its ``attempts``-th failure a sending is tried again: doubling, at most six hours."""
    return min(RETRY_AT_MOST, timedelta(seconds=settings.NOTIFY_RETRY_SECONDS * 2 ** (attempts - 1)))


def language_of(preference: Preference) -> str:
    """The language the person last used the site in (the site's own if never known)."""
    known = dict(settings.LANGUAGES)
    return preference.language if preference.language in known else settings.LANGUAGE_CODE
