"""What privacy asks of the notifications: a closed account forgotten, and sent entries of the outbox
deleted once they have served (the digests' periods)."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import User

from ..models import Delivery, Preference, PushSubscription


def person_forget(*, user_id: int) -> None:
    """A closed account's browsers, settings and outbox (sent or waiting) go, inside the caller's
    transaction: nothing is sent to it any more. The person's row is locked first, the order an email's
    sending takes (``sending.email_deliver``)."""
    User.objects.select_for_update(no_key=True).filter(pk=user_id).first()
    PushSubscription.objects.filter(user_id=user_id).delete()
    Preference.objects.filter(user_id=user_id).delete()
    Delivery.objects.filter(user_id=user_id).delete()


def deliveries_forget_old() -> int:
    """Delete the outbox's entries sent (or given up) more than ``NOTIFY_KEEP_DAYS`` ago; how many went."""
    before = timezone.now() - timedelta(days=settings.NOTIFY_KEEP_DAYS)
    return Delivery.objects.filter(created_at__lt=before).delete()[0]
