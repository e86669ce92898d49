"""The sending tasks, queued by name once the transaction that decided them commits (the tasks call
the services: the services may not import them)."""

from celery import current_app
from django.db import transaction

PUSH_SEND = "notifications.tasks.push_send"
EMAIL_SEND = "notifications.tasks.email_send"


def push_queue_on_commit(delivery_id: int) -> None:
    transaction.on_commit(lambda: current_app.send_task(PUSH_SEND, args=[delivery_id]))


def email_queue_on_commit(user_id: int, kind: str) -> None:
    transaction.on_commit(lambda: current_app.send_task(EMAIL_SEND, args=[user_id, kind]))
