"""The notifications' tasks, queued by name (the tasks call the services: the services and the
receivers may not import them): deciding what the news below means for a person, off the path of the
move or request that made it, and sending, once the transaction that decided it commits."""

from celery import current_app
from django.db import transaction

DECIDE = "notifications.tasks.decide"
PUSH_SEND = "notifications.tasks.push_send"
EMAIL_SEND = "notifications.tasks.email_send"


def push_queue_on_commit(delivery_id: int) -> None:
    transaction.on_commit(lambda: current_app.send_task(PUSH_SEND, args=[delivery_id]))


def email_queue_on_commit(user_id: int, kind: str) -> None:
    transaction.on_commit(lambda: current_app.send_task(EMAIL_SEND, args=[user_id, kind]))


def decide_later(news: str, **params: int | bool) -> None:
    """Have a worker decide what ``news`` (a ``tasks.DECIDERS`` name) means for its person."""
    current_app.send_task(DECIDE, args=[news], kwargs=params)
