"""The turn clock's one check per match, lost with a worker killed while it held it.

The test starts its own Celery workers (beat embedded) on the test database and kills only those,
by process id. The sweep is slowed to once in ten minutes, so whatever stands a bot in here is the
clock check itself.
"""

import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from gameplay import scheduling
from gameplay import services as gameplay_services
from gameplay.models import Match
from tables import services as table_services
from tables.models import Seat, Table
from tests.conftest import queued
from tests.factories import make_user
from tests.faults.play import wait_for

pytestmark = pytest.mark.faults

CLOCK_SECONDS = 3
"""The table's turn clock, shortened from the shortest a table offers (20 s) so the test is short."""


def test_a_clock_check_lost_with_a_killed_worker_is_replaced_by_the_next_turn_on_the_clock(
    stack, settings, broker
):
    settings.GONE_GRACE_SECONDS = 600  # nobody here has a page open: only the clock may stand a bot in
    stack.env.update(SWEEP_SECONDS="600", GONE_GRACE_SECONDS="600")
    first = stack.worker()
    ana, ion = make_user("ana"), make_user("ion")
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=20, is_private=False
    )
    table_services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    Table.objects.filter(pk=table.pk).update(turn_clock=CLOCK_SECONDS)
    match = Match.objects.get(table=table)
    lost = timezone.now() + timedelta(seconds=2)
    Match.objects.filter(pk=match.pk).update(due_at=lost, clock_check_at=lost)
    with transaction.atomic():
        scheduling.queue_clock_check(match.pk, lost)
    wait_for(lambda: not queued(broker, scheduling.CHECK_CLOCK) or None, 10, "the worker takes the check")

    stack.crash(first)
    # The check went with the worker: past its time and the margin for a late one, nothing stood in.
    time.sleep(max(0.0, (lost - timezone.now()).total_seconds()) + scheduling.CLOCK_CHECK_LOST_SECONDS + 0.5)
    assert not Seat.objects.filter(table=table, is_taken_over=True).exists()
    stack.worker()

    match.refresh_from_db()
    assert match.clock_check_at == lost
    gameplay_services.act(
        match_id=match.pk, seat=match.to_act, action={"type": "draw"}, expected_version=match.version
    )
    match.refresh_from_db()
    quiet, deadline = match.to_act, match.due_at
    assert match.due == Match.Due.CLOCK
    assert match.clock_check_at == deadline > lost, "the next turn on the clock queues a new check"

    seat = wait_for(
        lambda: Seat.objects.filter(table=table, position=quiet, is_taken_over=True).first(),
        CLOCK_SECONDS + 15,
        "the new worker runs the new check once the clock runs out",
    )
    assert seat.taken_over_at >= deadline, "not before the clock ran out"
