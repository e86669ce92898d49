"""Thin Celery tasks for the match's own flow; the work is in ``gameplay.services``."""

from datetime import datetime

from celery import shared_task

from . import services


@shared_task(name="gameplay.tasks.deal_next_round", ignore_result=True)
def deal_next_round(match_id: int, version: int) -> None:
    """Deal the next round after the finished one has been on show (stale versions do nothing)."""
    services.round_deal_next(match_id=match_id, expected_version=version)


@shared_task(name="gameplay.tasks.check_clock", ignore_result=True)
def check_clock(match_id: int, queued_for: str) -> None:
    """The match's one turn-clock check: a bot stands in once the clock has run out (see
    ``services.clock_check``); ``queued_for`` says which check this is."""
    services.clock_check(match_id=match_id, queued_for=datetime.fromisoformat(queued_for))


@shared_task(name="gameplay.tasks.sweep", ignore_result=True)
def sweep() -> None:
    """Run by Celery beat every ``SWEEP_SECONDS``: act on whatever a lost or late task left overdue."""
    services.sweep()
