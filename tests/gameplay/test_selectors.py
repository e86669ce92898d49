"""A table read while a move commits is read as of one moment: its log, state, version and score sheet
agree, whichever side of the read the move fell on."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection

from gameplay import selectors, services
from gameplay.engine.core import act as engine_act
from gameplay.games.screen import LOG_LENGTH
from gameplay.models import Match
from tables import selectors as table_selectors
from tests.gameplay.helpers import first_legal, human_match, live_state

# The move made "meanwhile" commits on a connection of its own, so the test's must not hold it back.
pytestmark = pytest.mark.django_db(transaction=True)


def _move_elsewhere(match_id: int, action: dict | None) -> None:
    """On another thread (and connection), commit ``action`` (or the first legal action) at the match."""
    try:
        seat, first = first_legal(Match.objects.get(pk=match_id))
        services.act(match_id=match_id, seat=seat, action=action or first)
    finally:
        connection.close()


@contextmanager
def a_move_commits_before_the_moves_are_read(match: Match, action: dict | None = None) -> Iterator[None]:
    """Just before this connection first reads the match's moves (after it read the match), another
    connection commits a move: the moment a busy table's page or websocket tore its read."""
    made = []

    def meanwhile(execute, sql, params, many, context):
        if not made and sql.lstrip().startswith("SELECT") and '"gameplay_move"' in sql:
            made.append(sql)
            mover = threading.Thread(target=_move_elsewhere, args=(match.pk, action))
            mover.start()
            mover.join()
        return execute(sql, params, many, context)

    with connection.execute_wrapper(meanwhile):
        yield
    assert made, "the moves were never read"
    assert Match.objects.get(pk=match.pk).moves_made == match.moves_made + 1  # the move did commit


def _read(match: Match) -> selectors.TableSnapshot:
    return selectors.table_snapshot(table_selectors.table_detail(table_id=match.table_id))


def _assert_one_moment(snapshot: selectors.TableSnapshot, moves: int) -> None:
    """The snapshot is the match after ``moves`` moves, its log included."""
    assert snapshot.match.moves_made == moves
    assert snapshot.last_seq == moves
    assert len(snapshot.recent_moves) == min(moves, LOG_LENGTH)


def test_a_move_committed_between_reading_the_match_and_its_moves_waits_for_the_next_read():
    match, _users = human_match("americana", 2)
    for version in range(2):
        seat, action = first_legal(match)
        services.act(match_id=match.pk, seat=seat, action=action, expected_version=version)
    match.refresh_from_db()
    with a_move_commits_before_the_moves_are_read(match):
        snapshot = _read(match)
    _assert_one_moment(snapshot, 2)
    assert snapshot.version == 2
    # The next read, whole or as news, has it.
    _assert_one_moment(_read(match), 3)
    _assert_one_moment(selectors.snapshot_advanced(snapshot), 3)


def test_news_read_while_a_further_move_commits_stops_at_the_match_it_read():
    match, _users = human_match("americana", 2)
    held = _read(match)
    seat, action = first_legal(match)
    services.act(match_id=match.pk, seat=seat, action=action, expected_version=0)
    match.refresh_from_db()
    with a_move_commits_before_the_moves_are_read(match):
        advanced = selectors.snapshot_advanced(held)
    _assert_one_moment(advanced, 1)
    assert advanced.version == 1


def _round_ending_action(match: Match) -> dict | None:
    """An action that ends the round now, if one of the legal actions does."""
    game, state = live_state(match)
    seat = game.to_act(state)
    for action in game.legal_actions(state):
        trial = game.state_from_json(game.state_to_json(state))
        engine_act(game, trial, seat, action)
        if game.awaiting_deal(trial) or game.is_over(trial):
            return game.action_to_json(action)
    return None


def test_a_round_ended_by_a_move_committed_during_the_read_is_not_on_the_score_sheet_yet():
    match, _users = human_match("americana", 2)
    while (ending := _round_ending_action(match)) is None:  # a card down whenever one can: rounds end
        kind = "play" if any(action["type"] == "play" for action in _legal_json(match)) else None
        seat, action = first_legal(match, kind)
        services.act(match_id=match.pk, seat=seat, action=action)
    match.refresh_from_db()
    with a_move_commits_before_the_moves_are_read(match, ending):
        snapshot = _read(match)
    assert snapshot.rounds == []  # the state is still in round 1
    _assert_one_moment(snapshot, match.moves_made)
    assert [row.number for row in _read(match).rounds] == [1]


def _legal_json(match: Match) -> list[dict]:
    game, state = live_state(match)
    return [game.action_to_json(action) for action in game.legal_actions(state)]
