"""Thin Celery tasks; the work is in ``opendata.services``."""

import logging

from celery import shared_task

from . import services

log = logging.getLogger(__name__)


@shared_task(name="opendata.tasks.build", ignore_result=True)
def build(game: str, month: str) -> None:
    """Build one game's file of one month (``YYYY-MM``): asked from the admin, or a closed account's."""
    dump = services.build(game=game, month=services.month_of(month))
    log.info("opendata: %s %s %s", game, month, "built" if dump else "left to the build already running")


@shared_task(name="opendata.tasks.monthly", ignore_result=True)
def monthly() -> None:
    """Run by Celery beat on the 1st: last month's files."""
    log.info("opendata: built %s", ", ".join(map(str, services.monthly())) or "nothing")
