"""The turn clock's one check per match, on PostgreSQL and the Redis broker (its queue read as it is, no
worker taking it): queued once for many moves, queuing itself again for the deadline it finds, standing
a bot in once the clock has run out, ending when nothing is on the clock, and replaced when lost."""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from bots import services as bot_services
from config.celery import app
from gameplay import scheduling, services
from gameplay.models import Match
from tables.models import Seat
from tests.conftest import queued, queued_args
from tests.gameplay.helpers import first_legal, human_match

pytestmark = pytest.mark.django_db(transaction=True)


def checks(broker) -> list[tuple[int, datetime, datetime]]:
    """The clock checks queued: (match, the check's own time, when the broker is to hand it over)."""
    found = []
    for message in queued(broker, scheduling.CHECK_CLOCK):
        match_id, at = queued_args(message)
        eta = datetime.fromisoformat(message["headers"]["eta"])
        found.append((match_id, datetime.fromisoformat(at), eta))
    return found


def forget_queued(broker) -> None:
    """Only what is queued from here on counts."""
    broker.delete(app.conf.task_default_queue)


def play(match: Match, moves: int) -> Match:
    for _ in range(moves):
        match.refresh_from_db()
        seat, action = first_legal(match)
        services.act(match_id=match.pk, seat=seat, action=action, expected_version=match.version)
    match.refresh_from_db()
    return match


def test_a_match_on_the_clock_queues_one_check_for_many_moves_at_its_first_deadline(broker):
    match, _users = human_match("americana", 2, clock=20)
    first = match.clock_check_at
    assert first is not None and first == match.due_at
    match = play(match, 6)
    assert match.due == Match.Due.CLOCK and match.due_at > first
    assert match.clock_check_at == first, "the queued check will do"
    ((match_id, at, eta),) = checks(broker)
    assert (match_id, at) == (match.pk, first)
    assert abs((eta - first).total_seconds()) < 1.0


def test_a_check_before_the_deadline_queues_itself_again_for_it_and_a_duplicate_does_nothing(broker):
    match, _users = human_match("americana", 2, clock=20)
    match = play(match, 3)
    first, version = match.clock_check_at, match.version
    forget_queued(broker)

    assert not services.clock_check(match_id=match.pk, queued_for=first)
    match.refresh_from_db()
    assert match.version == version and not Seat.objects.filter(is_taken_over=True).exists()
    assert match.clock_check_at == match.due_at
    ((_match_id, at, eta),) = checks(broker)
    assert at == match.due_at and abs((eta - at).total_seconds()) < 1.0

    assert not services.clock_check(match_id=match.pk, queued_for=first), "run twice"
    match.refresh_from_db()
    assert match.clock_check_at == at and len(checks(broker)) == 1


def test_a_check_past_the_deadline_stands_a_bot_in_once_and_the_next_turn_on_the_clock_starts_anew(broker):
    match, _users = human_match("americana", 2, clock=20)
    quiet = match.to_act
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(due_at=now - timedelta(seconds=0.1), clock_check_at=now)

    assert services.clock_check(match_id=match.pk, queued_for=now)
    assert Seat.objects.get(table=match.table_id, position=quiet).is_taken_over
    match.refresh_from_db()
    assert match.due == Match.Due.BOT and match.clock_check_at is None, "the chain ended"
    assert not services.clock_check(match_id=match.pk, queued_for=now), "run twice"

    forget_queued(broker)
    assert bot_services.bot_turn(match_id=match.pk, expected_version=match.version)
    match.refresh_from_db()
    while match.due == Match.Due.BOT:  # the stand-in plays on (an ace, a two) until the other's turn
        assert bot_services.bot_turn(match_id=match.pk, expected_version=match.version)
        match.refresh_from_db()
    assert match.due == Match.Due.CLOCK and match.to_act != quiet
    assert match.clock_check_at == match.due_at
    assert [at for _match_id, at, _eta in checks(broker)] == [match.due_at]


def test_a_check_finding_nothing_on_the_clock_ends_its_chain(broker):
    match, _users = human_match("americana", 2, clock=20)
    first = match.clock_check_at
    Match.objects.filter(pk=match.pk).update(due=Match.Due.DEAL)
    forget_queued(broker)
    assert not services.clock_check(match_id=match.pk, queued_for=first)
    match.refresh_from_db()
    assert match.clock_check_at is None and checks(broker) == []


def test_a_lost_check_is_replaced_at_the_next_move_and_a_late_one_is_not(broker):
    match, _users = human_match("americana", 2, clock=20)
    late = timezone.now() - timedelta(seconds=scheduling.CLOCK_CHECK_LOST_SECONDS / 2)
    Match.objects.filter(pk=match.pk).update(clock_check_at=late)
    forget_queued(broker)
    match = play(match, 1)
    assert match.clock_check_at == late and checks(broker) == [], "a late check still runs"

    lost = timezone.now() - timedelta(seconds=scheduling.CLOCK_CHECK_LOST_SECONDS * 2)
    Match.objects.filter(pk=match.pk).update(clock_check_at=lost)
    match = play(match, 1)
    assert match.clock_check_at == match.due_at
    assert [at for _match_id, at, _eta in checks(broker)] == [match.due_at]

    # The lost check turns up after all: no longer the one queued, it queues no other.
    assert not services.clock_check(match_id=match.pk, queued_for=lost)
    match.refresh_from_db()
    assert match.clock_check_at == match.due_at and len(checks(broker)) == 1
