"""A deadline at own pace lives on the match row: a worker (with beat) killed with -9 before it and
another started after loses nothing: the sweep of the new one finds the move whose time ran out, a bot
plays it and hands the seat back, and the person's late move is refused with why."""

import pytest
from django.utils import timezone

from gameplay import services as gameplay_services
from gameplay.frames import ActionRefused
from gameplay.models import Match, Move
from tables import services as table_services
from tables.models import Pace, Seat
from tests.factories import make_user
from tests.faults.play import wait_for
from tests.gameplay.helpers import first_legal

pytestmark = pytest.mark.faults

HOUR_SECONDS = "0.25"
"""An hour at own pace: 12 hours a move are three seconds."""


def test_a_deadline_at_own_pace_outlives_a_killed_worker(stack, settings):
    settings.OWN_PACE_HOUR_SECONDS = float(HOUR_SECONDS)
    stack.env["OWN_PACE_HOUR_SECONDS"] = HOUR_SECONDS
    first = stack.worker()
    ana, ion = make_user("ana"), make_user("ion")
    table = gameplay_services.table_create(
        host=ana,
        game="classic",
        options={"players": 2},
        turn_clock=45,
        is_private=False,
        pace_hours=Pace.HOURS_12,
    )
    table_services.seat_take(table_id=table.pk, user=ion)
    match = Match.objects.get(table=table)
    mover, action = first_legal(match)
    stack.crash(first)

    wait_for(lambda: Match.objects.get(pk=match.pk).due_at < timezone.now() or None, 10, "the time runs out")
    match.refresh_from_db()
    with pytest.raises(ActionRefused, match="ran out"):
        gameplay_services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
    assert not Move.objects.filter(match=match).exists(), "nothing moves with no worker"

    stack.worker()
    wait_for(
        lambda: Move.objects.filter(match=match, seat=mover, actor=Move.Actor.TAKEOVER).exists() or None,
        30,
        "the new worker's sweep finds the deadline and a bot plays the move",
    )
    wait_for(
        lambda: not Seat.objects.get(table=table, position=mover).is_taken_over or None,
        10,
        "the seat is its person's again for the next move",
    )
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING and match.due == Match.Due.PACE
