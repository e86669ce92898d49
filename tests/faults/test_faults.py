"""Nothing stalls, nothing crashes, nobody walks in: the site's own processes killed mid-match.

Each test starts its own Daphne servers, Celery worker (beat embedded) and, for the Redis test, a
private Redis, on the test database, and kills only those, by process id.
"""

from datetime import timedelta

import pytest

from bench.management.commands.soak import bot_table
from gameplay import services as gameplay_services
from gameplay.models import Match, Move
from tables import services as table_services
from tables.models import BotLevel, Seat, Table, TurnClock
from tests.factories import make_user
from tests.faults.play import Tab, check_record, play_turn, turn_of, wait_for

pytestmark = pytest.mark.faults

WORKER_BACK_SECONDS = 5
"""The bots move again within this long of a worker being back."""


def person_and_bot(person) -> int:
    """A started two-player Americana match of ``person`` (seat 0) against a bot; its id."""
    table = gameplay_services.table_create(
        host=person, game="americana", options={"players": 2}, turn_clock=TurnClock.NONE, is_private=True
    )
    table_services.bot_add(table_id=table.pk, by=person, position=1, level=BotLevel.EASY)
    return Match.objects.get(table=table).pk


def move_count(match_id: int) -> int:
    return Move.objects.filter(match_id=match_id).count()


def test_the_bots_play_on_once_a_killed_worker_is_back(stack):
    worker = stack.worker()
    host = make_user("host")
    matches = [
        Match.objects.get(
            table=bot_table(host=host, game="americana", options={"players": 2}, level=BotLevel.EASY)
        ).pk
        for _ in range(2)
    ]
    wait_for(lambda: all(move_count(m) >= 3 for m in matches), 30, "the bots make their first moves")

    stack.crash(worker)
    before = {match_id: move_count(match_id) for match_id in matches}
    assert Match.objects.filter(pk__in=matches, status=Match.Status.PLAYING).count() == len(matches)
    stack.worker()

    wait_for(
        lambda: all(move_count(m) > before[m] for m in matches),
        WORKER_BACK_SECONDS,
        "every match moves on once the worker is back",
    )
    for match_id in matches:
        assert check_record(match_id) > before[match_id]


def test_a_killed_server_loses_nothing_and_the_player_goes_on_on_another(stack):
    first, second = stack.daphne(), stack.daphne()
    stack.worker()
    ana = make_user("ana")
    match_id = person_and_bot(ana)
    tabs = {0: Tab(ana, Match.objects.get(pk=match_id).table_id)}
    tabs[0].open(first)

    _seat, _version, move = play_turn(tabs, match_id)
    # Her turn again (once the bot has answered, if it had to): nothing moves until she acts.
    _seat, version, _next = wait_for(lambda: turn_of(match_id, tabs), 30, "her turn comes again")
    hand = tabs[0].shows(version)
    state = Match.objects.get(pk=match_id).state

    stack.crash(stack.daphne_process(first))
    tabs[0].open(second)

    assert tabs[0].shows(version) == hand
    match = Match.objects.get(pk=match_id)
    assert (match.version, match.state) == (version, state)
    assert list(
        Move.objects.filter(match=match, actor=Move.Actor.PLAYER).values_list("action", flat=True)
    ) == [move]

    _seat, _version, again = play_turn(tabs, match_id)
    assert list(
        Move.objects.filter(match=match, actor=Move.Actor.PLAYER).values_list("action", flat=True)
    ) == [
        move,
        again,
    ]
    check_record(match_id)


def test_after_a_redis_restart_the_players_reconnect_and_play_on(stack):
    redis = stack.redis()
    url = stack.daphne()
    stack.worker()
    ana, ion = make_user("ana"), make_user("ion")
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=TurnClock.NONE, is_private=True
    )
    table_services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    match_id = Match.objects.get(table=table).pk
    tabs = {0: Tab(ana, table.pk), 1: Tab(ion, table.pk)}
    for tab in tabs.values():
        tab.open(url)
    for _ in range(2):
        play_turn(tabs, match_id)
    before = move_count(match_id)

    stack.crash(redis)
    stack.redis(stack.redis_port)

    for _ in range(3):
        play_turn(tabs, match_id)
    assert check_record(match_id) == before + 3


def test_a_table_left_alone_is_stood_in_for_then_abandoned_and_closed(stack, settings):
    grace, wait = 2, 4
    settings.GONE_GRACE_SECONDS, settings.ABANDON_AFTER_SECONDS = grace, wait
    stack.env.update(GONE_GRACE_SECONDS=str(grace), ABANDON_AFTER_SECONDS=str(wait))
    stack.worker()
    ana = make_user("ana")
    match_id = person_and_bot(ana)  # Ana never opens the table

    seat = wait_for(
        lambda: Seat.objects.filter(user=ana, is_taken_over=True).first(),
        grace + 20,
        "a bot stands in for the person who never came",
    )
    match = wait_for(
        lambda: Match.objects.filter(pk=match_id, status=Match.Status.ABORTED).first(),
        wait + 20,
        "the match is abandoned",
    )

    assert match.abort_reason.startswith("Abandoned")
    assert match.finished_at - seat.taken_over_at >= timedelta(seconds=wait - 1)
    assert Table.objects.get(pk=match.table_id).status == Table.Status.CLOSED
    assert Move.objects.filter(match=match, seat=0, actor=Move.Actor.TAKEOVER).exists()
