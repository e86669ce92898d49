"""The pool's periodic work; the work itself is in ``social.services``."""

from celery import shared_task

from . import services


@shared_task(name="social.tasks.pool_tick", ignore_result=True)
def pool_tick() -> None:
    """Run by Celery beat every second: pair whoever waits, bots for those who waited long enough."""
    services.pool_tick()
