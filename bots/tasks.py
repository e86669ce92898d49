"""Thin Celery tasks for bots; each carries the match version it was scheduled for."""

from celery import shared_task

from gameplay import services as gameplay_services

from . import services


@shared_task(name="bots.tasks.play_turn", ignore_result=True)
def play_turn(match_id: int, version: int) -> None:
    """A bot (or a bot standing in) plays its turn, unless the match has moved on."""
    services.bot_turn(match_id=match_id, expected_version=version)


@shared_task(name="bots.tasks.take_over_if_quiet", ignore_result=True)
def take_over_if_quiet(match_id: int, seat: int, version: int, reason: str = "clock") -> None:
    """The player's connections have been gone for the grace period ("gone"; the turn clock has a
    check of its own, ``gameplay.tasks.check_clock``, and "clock" is what a deploy may find queued):
    a bot stands in, if the seat still has not acted (and, when gone, is still gone)."""
    gameplay_services.seat_stand_in(
        match_id=match_id, seat=seat, expected_version=version, only_if_gone=reason == "gone"
    )
