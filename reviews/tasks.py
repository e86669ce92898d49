"""Thin Celery tasks: a review's judging runs on the reviews' own queue (``CELERY_REVIEW_QUEUE``, the
``reviewer`` process); the beat's resumption of stalled reviews, cheap, on the site's queue."""

from celery import shared_task

from . import events, services


@shared_task(name=events.RUN, ignore_result=True)
def run(review_id: int) -> None:
    services.run(review_id)


@shared_task(name="reviews.tasks.resume_stalled", ignore_result=True)
def resume_stalled() -> None:
    services.resume_stalled()
