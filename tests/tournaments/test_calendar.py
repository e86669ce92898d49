"""The calendar: a real Celery worker running beat makes each calendar tournament once, ahead of its
start, and starts it when due, telling those who joined."""

import io
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from social.models import Notice
from tests.conftest import ARTIFACTS, site_env, start_celery_worker, stop
from tests.faults.play import wait_for
from tournaments import services
from tournaments.models import Entry, Schedule, Tournament

from .conftest import CLASSIC_QUICK, established

pytestmark = pytest.mark.django_db(transaction=True)

STARTS_IN = timedelta(seconds=40)
"""Time enough for the worker to start and for the players to join before the start."""


def calendar_line(first_start, **fields) -> Schedule:
    values = {
        "name": "Hourly classic arena",
        "game": "classic",
        "options": CLASSIC_QUICK,
        "minutes": 30,
        "first_start": first_start,
        "every_minutes": 60,
        "ahead_minutes": 60,
        **fields,
    }
    return Schedule.objects.create(**values)


def test_the_calendar_makes_each_start_once_and_the_next_as_its_time_comes(transactional_db):
    now = timezone.now()
    line = calendar_line(now - timedelta(minutes=90), ahead_minutes=150)
    calendar_line(now, name="Switched off", active=False)

    assert services.calendar_make(now=now) == 3
    assert services.calendar_make(now=now) == 0
    made = Tournament.objects.filter(schedule=line).order_by("starts_at")
    # The first start not past (90 minutes after the first, every hour), and those within 150 minutes.
    assert [event.starts_at for event in made] == [
        line.first_start + timedelta(minutes=minutes) for minutes in (120, 180, 240)
    ]
    assert all(event.ends_at == event.starts_at + timedelta(minutes=30) for event in made)
    assert services.calendar_make(now=now + timedelta(minutes=60)) == 1
    assert not Tournament.objects.exclude(schedule=line).exists()


def tasks_done(log, task: str) -> int:
    """How many times the worker has finished ``task``, by its log."""
    return len(re.findall(rf"Task {re.escape(task)}\[[^\]]+\] succeeded", log.read_text(errors="replace")))


def test_a_worker_with_beat_makes_the_tournament_once_and_starts_it_telling_its_players(
    transactional_db, tmp_path
):
    line = calendar_line(timezone.now() + STARTS_IN)
    env = site_env(
        LOG_LEVEL="INFO",
        TOURNAMENT_CALENDAR_SECONDS="0.5",
        TOURNAMENT_TICK_SECONDS="0.5",
        TOURNAMENT_GRACE_SECONDS="120",
    )
    log_path = ARTIFACTS / "tournament-calendar-worker.log"
    with log_path.open("w") as log:
        worker = start_celery_worker(env, log, beat_schedule=tmp_path / "beat", level="INFO")
        try:
            event = wait_for(
                lambda: Tournament.objects.filter(schedule=line).first(),
                STARTS_IN.total_seconds() - 10,
                "beat makes the calendar's tournament ahead of its start",
            )
            assert event.starts_at == line.first_start and event.status == Tournament.Status.UPCOMING
            players = [established(f"early{index}", rating=1500 + index) for index in range(2)]
            for player in players:
                services.tournament_join(user=player, tournament_id=event.pk)

            made_once = tasks_done(log_path, "tournaments.tasks.calendar")
            wait_for(
                lambda: tasks_done(log_path, "tournaments.tasks.calendar") >= made_once + 3,
                30,
                "the calendar runs three times more",
            )
            assert Tournament.objects.filter(schedule=line).count() == 1  # the same start is made once

            started = wait_for(
                lambda: Tournament.objects.filter(pk=event.pk, status=Tournament.Status.RUNNING).first(),
                STARTS_IN.total_seconds() + 30,
                "the tick starts the tournament when due",
            )
            assert started.started_at >= event.starts_at
            told = Notice.objects.filter(kind=Notice.Kind.TOURNAMENT_STARTING, subject=event.name)
            assert sorted(told.values_list("recipient_id", flat=True)) == sorted(p.pk for p in players)
            # Waiting at the tournament (within the grace), they are seated together at once.
            seated = wait_for(
                lambda: list(Entry.objects.filter(tournament=event, table__isnull=False)),
                30,
                "the tick seats the two players",
            )
            assert len(seated) == 2 and seated[0].table_id == seated[1].table_id
        finally:
            stop(worker)


@pytest.mark.django_db
def test_the_example_calendar_is_added_once_switched_off_and_each_line_makes_a_playable_tournament():
    Schedule.objects.all().delete()
    out = io.StringIO()
    call_command("examplecalendar", stdout=out)
    call_command("examplecalendar", stdout=out)

    lines = list(Schedule.objects.order_by("name"))
    assert [line.name for line in lines] == [
        "Hourly Americana arena",
        "Nightly classic Swiss",
        "Weekend long arena",
    ]
    assert "Added (switched off): Nightly classic Swiss" in out.getvalue()
    assert "in the calendar already" in out.getvalue()
    assert not any(line.active for line in lines)
    swiss = lines[1]
    assert (swiss.kind, swiss.rounds, swiss.options["match"], swiss.options["lead"]) == (
        "swiss",
        7,
        "points8",
        "rotate",
    )
    assert services.calendar_make() == 0  # switched off: nothing is made
