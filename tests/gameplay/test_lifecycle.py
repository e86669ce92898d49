"""A match's lifecycle around its moves: seats changing hands mid-match, closing, abandoning, the sweep,
and the transaction rules every service keeps (durable, events after commit)."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from gameplay import services
from gameplay.models import Match, Move, Participant, SeatChange
from tables import services as table_services
from tables.models import Seat, Table
from tests.gameplay.helpers import first_legal, human_match, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quick_pauses")]


def test_replacing_the_person_to_act_mid_match_lets_a_bot_play_at_once(celery_worker):
    match, users = human_match("americana", 2)
    mover, _action = first_legal(match)
    version = match.version
    services.player_replace_with_bot(table_id=match.table_id, position=mover)
    match.refresh_from_db()
    assert match.version == version + 1, "every seat is told of the change"
    assert wait_until(lambda: Move.objects.filter(match=match, seat=mover, actor=Move.Actor.BOT).exists()), (
        "the bot now in the seat plays the turn it was given"
    )
    held = list(Participant.objects.filter(match=match, seat=mover).order_by("from_move"))
    assert [(p.user_id, p.bot_level, p.from_move, p.until_move) for p in held] == [
        (users[mover].pk, "", 0, 0),
        (None, "normal", 0, None),
    ]
    assert SeatChange.objects.get(match=match, seat=mover).kind == SeatChange.Kind.REPLACED


def test_a_stand_in_and_a_return_are_recorded_as_seat_changes():
    match, _users = human_match("classic", 2)
    mover, action = first_legal(match)
    assert services.seat_stand_in(match_id=match.pk, seat=mover, expected_version=match.version)
    match.refresh_from_db()
    services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version, reclaim=True)
    assert list(SeatChange.objects.filter(match=match).values_list("seat", "kind", "after_move")) == [
        (mover, SeatChange.Kind.STOOD_IN, 0),
        (mover, SeatChange.Kind.BACK, 0),
    ]


def test_the_sweep_plays_a_bot_turn_whose_task_was_lost():
    """No worker consumes the queue here, so only the sweep can move the match on: once the bot's move
    is overdue, the sweep queues it anew and pushes the deadline on (no duplicate on the next pass)."""
    match, _users = human_match("americana", 2)
    mover, _action = first_legal(match)
    Seat.objects.filter(table_id=match.table_id, position=mover).update(user=None, bot_level="normal")
    Match.objects.filter(pk=match.pk).update(due=Match.Due.BOT, due_at=timezone.now() - timedelta(seconds=5))
    assert services.sweep() == 1
    match.refresh_from_db()
    assert match.due == Match.Due.BOT, "re-armed, not swept twice"
    assert match.due_at > timezone.now() - timedelta(seconds=1)
    assert services.sweep() == 0


def test_the_sweep_deals_an_overdue_round_and_stands_in_when_the_clock_ran_out():
    match, _users = human_match("classic", 2, clock=20)
    mover, _action = first_legal(match)
    Match.objects.filter(pk=match.pk).update(due_at=timezone.now() - timedelta(seconds=5))
    assert services.sweep() == 1
    assert Seat.objects.get(table_id=match.table_id, position=mover).is_taken_over


def test_the_sweep_abandons_a_match_every_person_left_long_ago(settings):
    settings.ABANDON_AFTER_SECONDS = 60
    match, _users = human_match("classic", 2)
    long_ago = timezone.now() - timedelta(seconds=61)
    Seat.objects.filter(table_id=match.table_id).update(is_taken_over=True, taken_over_at=long_ago)
    services.sweep()
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and "Abandoned" in match.abort_reason
    assert Table.objects.get(pk=match.table_id).status == Table.Status.CLOSED


def test_abandoning_is_one_transaction_with_its_events_after_commit(monkeypatch):
    """If closing the table fails, the match is not left aborted on an open table, and nobody is told."""
    match, _users = human_match("classic", 2)
    long_ago = timezone.now() - timedelta(minutes=11)
    Seat.objects.filter(table_id=match.table_id).update(is_taken_over=True, taken_over_at=long_ago)
    sent: list[dict] = []

    class Layer:
        async def group_send(self, group: str, message: dict) -> None:
            sent.append(message)

    monkeypatch.setattr("tables.events.get_channel_layer", Layer)

    def refuse(table) -> None:
        raise RuntimeError("the table could not be closed")

    monkeypatch.setattr(table_services, "table_mark_closed", refuse)
    with pytest.raises(RuntimeError):
        services.match_abandon_if_deserted(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert Table.objects.get(pk=match.table_id).status == Table.Status.PLAYING
    assert sent == [], "nobody is told of a change that did not happen"


def test_a_service_is_never_run_inside_another_transaction():
    match, _users = human_match("americana", 2)
    mover, action = first_legal(match)
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        table_services.seat_leave(table_id=match.table_id, user=_users[0])


def test_moderators_racing_moves_never_deadlock_and_leave_one_consistent_end():
    """Closing the table, a move, replacing a player and a stand-in, all at once, many times: with one lock
    order (Table → Match → Seat) none waits on another forever, and the end state adds up."""
    for round_number in range(12):
        match, users = human_match("americana", 2, clock=20, prefix=f"r{round_number}")
        version = match.version
        done, failures = race(moderation_and_play(match, users))
        assert failures == {}, failures
        match.refresh_from_db()
        table = Table.objects.get(pk=match.table_id)
        assert table.status == Table.Status.CLOSED and match.status == Match.Status.ABORTED
        changes = 1 + sum(1 for name in ("move", "replace", "stand_in") if done[name])
        assert match.version == version + changes, (done, match.version)
        assert list(match.moves.values_list("seq", flat=True)) == list(range(1, match.moves.count() + 1))
        replaced = Participant.objects.filter(match=match, bot_level="normal").values_list("seat", flat=True)
        people_left = Seat.objects.filter(table=table, bot_level="normal").values_list("position", flat=True)
        assert list(replaced) == list(people_left), "the match's record agrees with the table's seats"


def moderation_and_play(match: Match, users: list) -> dict:
    """A moderator closing the table, the mover moving, a moderator replacing the other player, and
    the clock's stand-in for the mover, each as one call."""
    mover, action = first_legal(match)
    version = match.version
    return {
        "close": lambda: services.table_close(table_id=match.table_id, reason="test"),
        "move": lambda: services.act(
            match_id=match.pk, seat=mover, action=action, expected_version=version, user_id=users[mover].pk
        ),
        "replace": lambda: services.player_replace_with_bot(table_id=match.table_id, position=1 - mover),
        "stand_in": lambda: services.seat_stand_in(match_id=match.pk, seat=mover, expected_version=version),
    }


def race(work: dict) -> tuple[dict, dict]:
    """Run each callable in its own thread, released together; what each returned (or False when refused
    as the rules say), and any other error."""
    import threading

    from gameplay.services import ActionRefused
    from tables.services import TableError

    barrier = threading.Barrier(len(work))
    done: dict = {}
    failures: dict = {}

    def run(name, call) -> None:
        try:
            barrier.wait()
            done[name] = call() or False
        except (ActionRefused, TableError):
            done[name] = False
        except Exception as error:  # a deadlock or anything else unexpected
            failures[name] = repr(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in work.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return done, failures
