"""Thin Celery tasks; the work is in ``chat.services``."""

from celery import shared_task

from . import services


@shared_task(name="chat.tasks.settings_announce", ignore_result=True)
def settings_announce(table_id: int) -> None:
    """Queued by a host's switch of the table's chat settings: the pages hear of them, once."""
    services.chat_settings_announce(table_id=table_id)
