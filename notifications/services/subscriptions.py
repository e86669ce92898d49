"""A device's web push subscription: saved when its person taps "turn on" on the settings page, deleted
when they turn it off (a push service refusing it as gone deletes it too: ``sending``).

What a browser sends is checked before anything is kept: its push service's address (https, on a
known push service's domain, ``PUSH_SERVICE_DOMAINS``: the worker posts to it, so no address inside
the site's own network) and the keys every message is encrypted with (a point on P-256 and a 16-byte
secret), so that a push to it can only fail because the push service says so. A person keeps at most
``PUSH_SUBSCRIPTIONS_PER_PERSON`` devices (turning on one more forgets the one turned on longest ago)
and spends a budget on each request."""

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from accounts import limits

from ..models import PushSubscription

P256_POINT_BYTES = 65
AUTH_SECRET_BYTES = 16


def _longest(field: str) -> int:
    return PushSubscription._meta.get_field(field).max_length


class SubscriptionRefused(Exception):
    """What a browser sent is not a subscription the site can push to; the text says why."""


class SubscriptionTooBig(SubscriptionRefused):
    def __init__(self) -> None:
        most = settings.PUSH_SUBSCRIPTION_MAX_BYTES
        super().__init__(_("A subscription is at most %(count)d bytes.") % {"count": most})


class SubscriptionThrottled(Exception):
    """The person (or their network) turned push on and off too often: ``wait`` seconds until the next."""

    def __init__(self, message: str, wait: float) -> None:
        super().__init__(message)
        self.wait = wait


@dataclass(frozen=True)
class Offered:
    """A subscription as a browser's ``PushSubscription.toJSON()`` gives it, checked."""

    endpoint: str
    p256dh: str
    auth: str


def _decoded(text: object, length: int, limit: int) -> bytes | None:
    """``text`` as base64url (padded or not) of exactly ``length`` bytes, else None."""
    if not isinstance(text, str) or len(text) > limit:
        return None
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return data if len(data) == length else None


def _push_service(endpoint: object) -> str | None:
    """``endpoint`` if it is a push service's address the site may post to, else None."""
    if (
        not isinstance(endpoint, str)
        or len(endpoint) > PushSubscription._meta.get_field("endpoint").max_length
    ):
        return None
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    known = any(host == domain or host.endswith("." + domain) for domain in settings.PUSH_SERVICE_DOMAINS)
    if parts.scheme != "https" or parts.username or parts.password or port not in (None, 443) or not known:
        return None
    return endpoint


def _endpoint_of(body: object) -> str:
    endpoint = _push_service(body.get("endpoint") if isinstance(body, dict) else None)
    if endpoint is None:
        raise SubscriptionRefused(
            _("This browser's push service is not one the site sends notifications through.")
        )
    return endpoint


def _json(body: bytes) -> object:
    if len(body) > settings.PUSH_SUBSCRIPTION_MAX_BYTES:
        raise SubscriptionTooBig
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError) as error:
        raise SubscriptionRefused(_("The subscription is not JSON.")) from error


def subscription_read(body: bytes) -> Offered:
    """The subscription a browser posted (``{"endpoint": ..., "keys": {"p256dh": ..., "auth": ...}}``),
    or ``SubscriptionRefused`` saying what is wrong with it."""
    data = _json(body)
    endpoint = _endpoint_of(data)
    keys = data.get("keys")
    keys = keys if isinstance(keys, dict) else {}
    point = _decoded(
        keys.get("p256dh"), P256_POINT_BYTES, PushSubscription._meta.get_field("p256dh").max_length
    )
    secret = _decoded(
        keys.get("auth"), AUTH_SECRET_BYTES, PushSubscription._meta.get_field("auth").max_length
    )
    try:
        if point is None or secret is None:
            raise ValueError
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError as error:
        raise SubscriptionRefused(_("The subscription's keys are not a browser's push keys.")) from error
    return Offered(endpoint=endpoint, p256dh=keys["p256dh"], auth=keys["auth"])


def endpoint_read(body: bytes) -> str:
    """The endpoint of the subscription a browser asks to forget (``{"endpoint": ...}``)."""
    return _endpoint_of(_json(body))


def _spend(user_id: int, address: str | None) -> None:
    if shortfall := limits.spend_person_and_address(
        "push-subscriptions",
        user_id,
        address,
        count=settings.PUSH_SUBSCRIBE_PER_HOUR,
        address_count=settings.PUSH_SUBSCRIBE_PER_ADDRESS_PER_HOUR,
        seconds=3600,
        refusal=_("You turned notifications on and off too often: try again in %(seconds)d s."),
        address_refusal=_(
            "Notifications were turned on and off too often from your network: try again in %(seconds)d s."
        ),
    ):
        raise SubscriptionThrottled(shortfall.said, max(1, round(shortfall.wait)))


def subscription_save(*, user, offered: Offered, address: str | None) -> None:
    """Keep ``offered`` as one of ``user``'s devices: the same endpoint again changes nothing but its
    keys and its time, one another person had on this browser becomes ``user``'s (the browser is
    theirs now), and past the cap the device turned on longest ago is forgotten."""
    _spend(user.pk, address)
    with transaction.atomic(durable=True):
        # One person's subscriptions change one request at a time, so the cap holds under a burst.
        get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        PushSubscription.objects.bulk_create(
            [
                PushSubscription(
                    user=user, endpoint=offered.endpoint, p256dh=offered.p256dh, auth=offered.auth
                )
            ],
            update_conflicts=True,
            unique_fields=["endpoint"],
            update_fields=["user", "p256dh", "auth", "created_at"],
        )
        newest_first = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")
        beyond = list(newest_first.values_list("pk", flat=True)[settings.PUSH_SUBSCRIPTIONS_PER_PERSON :])
        if beyond:
            PushSubscription.objects.filter(pk__in=beyond).delete()


def subscription_delete(*, user, endpoint: str, address: str | None) -> bool:
    """Forget ``user``'s device at ``endpoint`` (another person's is left alone): whether there was one."""
    _spend(user.pk, address)
    with transaction.atomic(durable=True):
        deleted, _kinds = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return deleted > 0


def endpoint_digests(user_id: int) -> list[str]:
    """The SHA-256 of each of the person's endpoints: the settings page tells by it whether the browser
    showing it is one of their devices (a browser another person turned on is not), without the page
    holding the endpoints themselves."""
    endpoints = PushSubscription.objects.filter(user_id=user_id).values_list("endpoint", flat=True)
    return [hashlib.sha256(endpoint.encode()).hexdigest() for endpoint in endpoints]
