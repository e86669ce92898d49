"""What the notifications' jobs share: the stated periods (an email's, a retry's) and the language a
person is written in."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Max

from ..models import Delivery, Preference, Way

RETRY_AT_MOST = timedelta(hours=6)


def email_period() -> timedelta:
    """At most one email of a kind to a person in this long."""
    return timedelta(minutes=settings.NOTIFY_EMAIL_PERIOD_MINUTES)


def next_email(user_id: int, kind: str, now: datetime) -> datetime:
    """The earliest an email of ``kind`` may go to the person: a period after the last one (what comes
    meanwhile waits for it and goes as one message)."""
    last = Delivery.objects.filter(
        user_id=user_id, kind=kind, way=Way.EMAIL, sent_at__isnull=False
    ).aggregate(last=Max("sent_at"))["last"]
    return max(now, last + email_period()) if last else now


def retry_after(attempts: int) -> timedelta:
    """How long after its ``attempts``-th failure a sending is tried again: doubling, at most six hours."""
    return min(RETRY_AT_MOST, timedelta(seconds=settings.NOTIFY_RETRY_SECONDS * 2 ** (attempts - 1)))


def language_of(preference: Preference) -> str:
    """The language the person last used the site in (the site's own if never known)."""
    known = dict(settings.LANGUAGES)
    return preference.language if preference.language in known else settings.LANGUAGE_CODE
