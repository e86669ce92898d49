"""Thin Celery tasks; the work (each sending once, however often its task runs) is in
``notifications.services``."""

import logging

from celery import shared_task

from . import events, services

log = logging.getLogger(__name__)

DECIDERS = {
    "turn_began": services.turn_began,
    "move_stood_in": services.move_stood_in,
    "match_ended": services.match_ended,
    "notice_kept": services.notice_kept,
    "warning_given": services.warning_given,
}
"""The news the receivers hand on, by name, and the service that decides what it means."""


@shared_task(name=events.DECIDE, ignore_result=True)
def decide(news: str, **params) -> None:
    """What the news means for its person: the outbox's rows, and the sendings due at once queued."""
    DECIDERS[news](**params)


@shared_task(name=events.PUSH_SEND, ignore_result=True)
def push_send(delivery_id: int) -> None:
    services.push_deliver(delivery_id=delivery_id)


@shared_task(name=events.EMAIL_SEND, ignore_result=True)
def email_send(user_id: int, kind: str) -> None:
    services.email_deliver(user_id=user_id, kind=kind)


@shared_task(name="notifications.tasks.send_due", ignore_result=True)
def send_due() -> None:
    """Run by Celery beat: queue whatever is due and unsent (after quiet hours, a digest's period, a
    failure's wait, a task lost with its worker)."""
    pushes, emails = services.deliveries_due()
    for delivery_id in pushes:
        push_send.delay(delivery_id)
    for user_id, kind in emails:
        email_send.delay(user_id, kind)
    if pushes or emails:
        log.info("notifications due: %d pushes, %d emails", len(pushes), len(emails))
