"""The outbox sent, each entry once. A sending locks its rows and skips those already sent, so a task
run twice (or beat's sweep meeting the task queued on commit) sends once; the person's budget is spent
before the work; what failed (a mail server down, a push service not answering) stays unsent with its
error and is tried again later by the sweep, doubling the wait each time."""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts import limits
from accounts.locks import hold_for_person
from accounts.models import User
from gameplay.models import Match

from .. import mail, push, texts
from ..models import Delivery, Kind, PushSubscription, Way, preference_of
from .shared import language_of, next_email, retry_after

logger = logging.getLogger(__name__)

EMAIL_LOCKS = 5252
"""The first key of the lock a person's email sending takes (``accounts.locks``; the second is their id)."""


def deliveries_due(*, now: datetime | None = None) -> tuple[list[int], list[tuple[int, str]]]:
    """What beat's sweep sends: the pushes (by id) and the emails (by person and kind) due and unsent,
    not given up."""
    pending = Delivery.objects.filter(
        sent_at__isnull=True, due_at__lte=now or timezone.now(), attempts__lt=settings.NOTIFY_ATTEMPTS
    )
    pushes = list(pending.filter(way=Way.PUSH).values_list("pk", flat=True)[: settings.NOTIFY_SWEEP_BATCH])
    emails = list(
        pending.filter(way=Way.EMAIL).values_list("user_id", "kind").distinct()[: settings.NOTIFY_SWEEP_BATCH]
    )
    return pushes, emails


def push_deliver(*, delivery_id: int) -> bool:
    """Send one push to every browser the person subscribed; True when one took it. A push no longer
    true (the turn was played), over the person's hourly budget or with no browser left is dropped: a
    push late by an hour is noise."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(pk=delivery_id, way=Way.PUSH, sent_at__isnull=True, due_at__lte=now)
            .first()
        )
        if delivery is None:
            return False
        subscriptions = list(PushSubscription.objects.filter(user_id=delivery.user_id))
        if not (_still_true(delivery) and subscriptions and push.configured()) or _over_budget(
            f"notify-push:{delivery.user_id}", settings.NOTIFY_PUSH_PER_HOUR, 3600
        ):
            delivery.delete()
            return False
        with translation.override(language_of(preference_of(delivery.user_id))):
            said = texts.said(delivery)
        payload = {"title": said.title, "body": said.body, "url": delivery.link, "tag": _tag(delivery)}
        outcomes = {subscription.pk: push.send(subscription, payload) for subscription in subscriptions}
        sent = [pk for pk, outcome in outcomes.items() if outcome == push.Outcome.SENT]
        PushSubscription.objects.filter(
            pk__in=[pk for pk, outcome in outcomes.items() if outcome == push.Outcome.GONE]
        ).delete()
        PushSubscription.objects.filter(pk__in=sent).update(last_sent_at=now)
        if sent:
            delivery.sent_at = now
            delivery.save(update_fields=["sent_at"])
        elif push.Outcome.FAILED in outcomes.values():
            _failed(delivery, _("The push service did not take it."), now)
        else:
            delivery.delete()  # every browser gone
        return bool(sent)


def email_deliver(*, user_id: int, kind: str) -> int:
    """Send the person's due emails of ``kind`` as one message (a digest when there are several); how
    many entries it held. Only to a confirmed address; a turn already played is left out. The person's
    email lock is taken first, so two sendings at once for them (two turns decided together) make one
    email, and one within the period of the last waits for its end."""
    with transaction.atomic():
        hold_for_person(EMAIL_LOCKS, user_id)
        user = User.objects.filter(pk=user_id).first()
        now = timezone.now()
        rows = list(
            Delivery.objects.select_for_update()
            .filter(
                user_id=user_id,
                kind=kind,
                way=Way.EMAIL,
                sent_at__isnull=True,
                due_at__lte=now,
                attempts__lt=settings.NOTIFY_ATTEMPTS,
            )
            .order_by("created_at", "pk")
        )
        if user is None or not (user.is_active and user.email and user.email_confirmed_at) or user.erased_at:
            Delivery.objects.filter(pk__in=[row.pk for row in rows]).delete()
            return 0
        stale = [row.pk for row in rows if not _still_true(row)]
        Delivery.objects.filter(pk__in=stale).delete()
        rows = [row for row in rows if row.pk not in stale]
        if not rows:
            return 0
        if (period_over := next_email(user_id, kind, now)) > now:
            _postpone(rows, period_over)
            return 0
        if wait := _over_budget(f"notify-email:{user_id}", settings.NOTIFY_EMAILS_PER_DAY, 86400):
            _postpone(rows, now + timedelta(seconds=wait))
            return 0
        with translation.override(language_of(preference_of(user_id))):
            message = mail.message(
                user_id=user_id,
                address=user.email,
                kind=kind,
                entries=[(texts.said(row), row.link) for row in rows],
            )
        try:
            message.send()
        except OSError as error:  # smtplib's errors are OSErrors too
            logger.warning("Notification email to person %s failed: %s", user_id, error)
            for row in rows:
                _failed(row, str(error) or type(error).__name__, now)
            return 0
        Delivery.objects.filter(pk__in=[row.pk for row in rows]).update(sent_at=now)
        return len(rows)


def _postpone(rows: list[Delivery], until: datetime) -> None:
    Delivery.objects.filter(pk__in=[row.pk for row in rows]).update(due_at=until)


def _still_true(delivery: Delivery) -> bool:
    """Whether the news still holds when it is sent: a turn is still the person's to play."""
    if delivery.kind != Kind.YOUR_TURN:
        return True
    params = delivery.params
    return Match.objects.filter(
        pk=params.get("match"), status=Match.Status.PLAYING, to_act=params.get("seat")
    ).exists()


def _over_budget(key: str, count: int, seconds: float) -> float:
    """Spend one from the person's budget: 0 when spent, else the seconds until it holds one."""
    shortfall = limits.spend_all(limits.Budget.per(key, count, seconds))
    return shortfall.wait if shortfall else 0.0


def _tag(delivery: Delivery) -> str:
    """The notice a newer one replaces on the device: one per match, else one per thing."""
    match = delivery.params.get("match")
    return f"match-{match}" if match else delivery.key


def _failed(delivery: Delivery, error: str, now: datetime) -> None:
    delivery.attempts += 1
    delivery.last_error = error[:300]
    delivery.due_at = now + retry_after(delivery.attempts)
    delivery.save(update_fields=["attempts", "last_error", "due_at"])
