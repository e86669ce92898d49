"""The tournaments' periodic work; the work itself is in ``tournaments.services``."""

from celery import shared_task

from . import services


@shared_task(name="tournaments.tasks.tick", ignore_result=True)
def tick() -> None:
    """Run by Celery beat every second: start, pair, score what was missed, move on, end."""
    services.tick()


@shared_task(name="tournaments.tasks.calendar", ignore_result=True)
def calendar() -> None:
    """Run by Celery beat every minute: make the calendar's tournaments due to be announced."""
    services.calendar_make()
