"""The reviews' task, queued by name (the services may not import the tasks) once the request's
transaction commits. It is routed to a queue of its own (``CELERY_REVIEW_QUEUE``): a review keeps a
worker busy for seconds, which must never delay a bot's turn or a turn clock."""

from celery import current_app
from django.db import transaction

RUN = "reviews.tasks.run"


def run_on_commit(review_id: int) -> None:
    transaction.on_commit(lambda: current_app.send_task(RUN, args=[review_id]))
