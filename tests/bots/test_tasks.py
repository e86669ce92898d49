"""Bot turns, stand-ins and the match's own flow on a real Celery worker, Redis and PostgreSQL."""

import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from bots import services as bot_services
from bots.tasks import play_turn, take_over_if_quiet
from gameplay import presence, scheduling, services
from gameplay.engine import get_game
from gameplay.models import Match, Move
from gameplay.tasks import check_clock, sweep
from tables import services as table_services
from tables.models import Seat, Table
from tests.factories import make_user
from tests.gameplay.helpers import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quick_pauses")]


def bot_table(game: str, levels: list[str], options: dict | None = None) -> Match:
    host = make_user("host")
    table = services.table_create(
        host=host,
        game=game,
        options={"players": len(levels), **(options or {})},
        turn_clock=0,
        is_private=True,
    )
    # The host stands up and leaves the table to the bots: a table of bots only.
    Seat.objects.filter(table=table, position=0).update(user=None)
    for position, level in enumerate(levels):
        if position == 0:
            Seat.objects.filter(table=table, position=0).update(bot_level=level)
        else:
            table_services.bot_add(table_id=table.pk, by=host, position=position, level=level)
    return Match.objects.get(table=table)


@pytest.mark.parametrize(
    ("game", "levels"), [("americana", ["normal", "easy"]), ("classic", ["easy", "normal"])]
)
def test_a_table_of_bots_plays_a_whole_match_by_itself(celery_worker, game, levels):
    match = bot_table(game, levels, {"target": 101} if game == "americana" else {"match": "points8"})
    assert wait_until(lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED, timeout=240)
    match.refresh_from_db()
    assert match.result["winners"] is not None
    assert Move.objects.filter(match=match).exclude(actor="bot").count() == 0
    assert match.rounds.count() >= 1
    assert Table.objects.get(pk=match.table_id).status == Table.Status.FINISHED


def test_a_quiet_player_is_stood_in_for_and_gets_the_seat_back(celery_worker):
    ana, ion = make_user("ana"), make_user("ion")
    table = services.table_create(host=ana, game="classic", options={}, turn_clock=20, is_private=False)
    table_services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    match = Match.objects.get(table=table)
    quiet = match.to_act
    # The clock runs out in a second instead of 20; its check was queued for a deadline before that
    # (as when the players moved since), so it runs, finds the deadline moved on, and checks again then.
    deadline, earlier = timezone.now() + timedelta(seconds=1.0), timezone.now() + timedelta(seconds=0.3)
    Match.objects.filter(pk=match.pk).update(due_at=deadline, clock_check_at=earlier)
    with transaction.atomic():
        scheduling.queue_clock_check(match.pk, earlier)
    assert wait_until(lambda: Match.objects.get(pk=match.pk).clock_check_at == deadline, timeout=5)
    assert wait_until(lambda: Seat.objects.get(table=table, position=quiet).is_taken_over)
    seat = Seat.objects.get(table=table, position=quiet)
    assert seat.taken_over_at >= deadline, "not before the clock ran out"
    # The stand-in plays the seat, visibly, as a takeover.
    assert wait_until(lambda: Move.objects.filter(match=match, seat=quiet, actor="takeover").exists())
    assert seat.user_id in (ana.pk, ion.pk)
    # "I'm back": the seat is the player's again.
    assert services.seat_reclaim(match_id=match.pk, seat=quiet)
    seat.refresh_from_db()
    assert not seat.is_taken_over and seat.taken_over_at is None


def test_a_clock_check_run_before_the_deadline_stands_nobody_in_and_waits_for_it(celery_worker):
    ana, ion = make_user("ana"), make_user("ion")
    table = services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=20, is_private=False
    )
    table_services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    match = Match.objects.get(table=table)
    services.act(match_id=match.pk, seat=match.to_act, action={"type": "draw"}, expected_version=0)
    match.refresh_from_db()
    # The first turn's check, run early: the turn has been played, the next one's clock runs.
    check_clock.delay(match.pk, match.clock_check_at.isoformat())
    assert wait_until(lambda: Match.objects.get(pk=match.pk).clock_check_at == match.due_at, timeout=5)
    assert not Seat.objects.filter(table=table, is_taken_over=True).exists()
    assert Match.objects.get(pk=match.pk).version == match.version


def test_stale_bot_tasks_do_nothing(celery_worker):
    match = bot_table("classic", ["easy", "easy"])
    assert wait_until(lambda: Move.objects.filter(match=match).count() >= 3)
    services.table_close(table_id=match.table_id, reason="test")
    moves = Move.objects.filter(match=match).count()
    play_turn.delay(match.pk, 0)
    play_turn.delay(match.pk, Match.objects.get(pk=match.pk).version)
    time.sleep(1.0)
    assert Move.objects.filter(match=match).count() == moves
    assert not bot_services.bot_turn(match_id=match.pk, expected_version=0)


def test_a_worker_restart_mid_match_loses_nothing(celery_worker):
    from config.embedded_worker import start_embedded_worker, stop_embedded_worker

    match = bot_table("americana", ["easy", "easy"])
    assert wait_until(lambda: Move.objects.filter(match=match).count() >= 5)
    stop_embedded_worker(celery_worker)
    stopped_at = Move.objects.filter(match=match).count()
    time.sleep(1.0)
    assert Move.objects.filter(match=match).count() == stopped_at
    replacement = start_embedded_worker()
    try:
        assert wait_until(lambda: Move.objects.filter(match=match).count() > stopped_at + 5, timeout=60)
    finally:
        stop_embedded_worker(replacement)


def private_classic_match() -> tuple[Table, Match, int]:
    """A private classic table of two people, ana and ion, with no clock: (table, match, seat to act)."""
    ana, ion = make_user("ana"), make_user("ion")
    table = services.table_create(host=ana, game="classic", options={}, turn_clock=0, is_private=True)
    table_services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    match = Match.objects.get(table=table)
    game = get_game("classic")
    return table, match, game.to_act(game.state_from_json(match.state))


def test_a_player_gone_for_the_grace_period_is_stood_in_for_unless_back(celery_worker, settings):
    settings.GONE_GRACE_SECONDS = 0.5
    table, match, mover = private_classic_match()
    presence.arrive(table.pk, mover, "a-tab")  # the player reconnected within the grace period
    try:
        take_over_if_quiet.delay(match.pk, mover, match.version, "gone")
        time.sleep(1.0)
        assert not Seat.objects.get(table=table, position=mover).is_taken_over
    finally:
        presence.leave(table.pk, mover, "a-tab")
    take_over_if_quiet.delay(match.pk, mover, match.version, "gone")
    time.sleep(0.2)
    assert not Seat.objects.get(table=table, position=mover).is_taken_over, "gone for less than the grace"
    time.sleep(0.5)
    take_over_if_quiet.delay(match.pk, mover, match.version, "gone")
    assert wait_until(lambda: Seat.objects.get(table=table, position=mover).is_taken_over)


def test_the_grace_counts_from_the_last_disconnect(settings):
    """Back within the grace, then gone again: the check from the first drop finds the player gone for
    less than the grace (counted from the second drop), so the seat stays theirs until that one runs out."""
    settings.GONE_GRACE_SECONDS = 1.0
    table, match, mover = private_classic_match()
    presence.arrive(table.pk, mover, "a-tab")
    presence.leave(table.pk, mover, "a-tab")  # the first drop
    time.sleep(0.7)
    presence.arrive(table.pk, mover, "a-tab")  # back
    presence.leave(table.pk, mover, "a-tab")  # the second drop
    time.sleep(0.4)  # the first drop's grace is over, the second's is not
    assert not services.seat_stand_in(
        match_id=match.pk, seat=mover, expected_version=match.version, only_if_gone=True
    )
    time.sleep(0.7)
    assert services.seat_stand_in(
        match_id=match.pk, seat=mover, expected_version=match.version, only_if_gone=True
    )


def test_a_match_whose_every_player_is_away_is_abandoned_by_the_sweep(celery_worker):
    ana, ion = make_user("ana"), make_user("ion")
    table = services.table_create(host=ana, game="classic", options={}, turn_clock=0, is_private=True)
    table_services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    match = Match.objects.get(table=table)
    assert not services.match_abandon_if_deserted(match_id=match.pk), "people are still playing"
    long_ago = timezone.now() - timedelta(minutes=11)
    Seat.objects.filter(table=table).update(is_taken_over=True, taken_over_at=long_ago)
    sweep.delay()
    assert wait_until(lambda: Match.objects.get(pk=match.pk).status == Match.Status.ABORTED)
    match.refresh_from_db()
    assert "Abandoned" in match.abort_reason
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
