"""Web push: one message, encrypted for a browser's keys (RFC 8291, aes128gcm) and signed with the
site's VAPID key, handed to that browser's push service. A push service that hangs costs at most
``PUSH_TIMEOUT_SECONDS``; one that answers 404 or 410 says the subscription is gone for good."""

import json
import logging
from enum import StrEnum

import requests
from django.conf import settings
from pywebpush import WebPushException, webpush

from .models import PushSubscription

logger = logging.getLogger(__name__)

KEEP_SECONDS = 24 * 3600
"""How long the push service keeps a message for a device that is off (its TTL)."""
GONE_STATUSES = {404, 410}


class Outcome(StrEnum):
    SENT = "sent"
    GONE = "gone"
    """The push service no longer knows the subscription: delete it."""
    FAILED = "failed"
    """Not delivered this time (a timeout, the push service down): try again later."""


def configured() -> bool:
    """Whether the site has a VAPID key pair (without one no push is sent)."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


def send(subscription: PushSubscription, payload: dict) -> Outcome:
    """Send ``payload`` (JSON: title, body, url, tag) to one browser."""
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=json.dumps(payload, ensure_ascii=False),
            vapid_private_key=settings.VAPID_PRIVATE_KEY,
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            timeout=settings.PUSH_TIMEOUT_SECONDS,
            ttl=KEEP_SECONDS,
        )
    except WebPushException as error:
        status = error.response.status_code if error.response is not None else None
        if status in GONE_STATUSES:
            return Outcome.GONE
        logger.warning("Push to subscription %s refused: %s", subscription.pk, status or error)
        return Outcome.FAILED
    except (requests.RequestException, ValueError) as error:
        logger.warning("Push to subscription %s failed: %s", subscription.pk, type(error).__name__)
        return Outcome.FAILED
    return Outcome.SENT
