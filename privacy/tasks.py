"""Thin Celery tasks; the work is in ``privacy.services``."""

import logging

from celery import shared_task

from . import services

log = logging.getLogger(__name__)


@shared_task(name="privacy.tasks.export_build", ignore_result=True)
def export_build(export_id: int) -> None:
    """Prepare a person's download (a task run twice, or after the download went, does nothing). A
    build that breaks is marked failed at once, so the page offers to ask again."""
    try:
        services.export_build(export_id=export_id)
    except Exception:
        services.export_failed(export_id=export_id)
        raise


@shared_task(name="privacy.tasks.retention", ignore_result=True)
def retention() -> None:
    """Run by Celery beat: delete what the privacy page says is kept no longer."""
    log.info("retention: %s", services.retention_run())
