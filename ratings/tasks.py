"""The ratings' periodic work; the work itself is in ``ratings.services``."""

from celery import shared_task

from . import services


@shared_task(name="ratings.tasks.catch_up", ignore_result=True)
def catch_up() -> None:
    """Run by Celery beat: rate the decided matches whose update a dead process never made."""
    services.catch_up()
