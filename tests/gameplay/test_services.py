"""Moves through gameplay.services on PostgreSQL: legal, illegal, stale, concurrent, restart-safe."""

import random
import threading

import pytest
from django.db import connection

from gameplay import services
from gameplay.engine import get_game
from gameplay.models import Match, Move, RoundResult
from tests.factories import make_user
from tests.gameplay.helpers import first_legal, human_match, live_state


def test_a_legal_move_is_saved_with_its_events_and_bumps_the_version(db, django_capture_on_commit_callbacks):
    match, _users = human_match(clock=45)
    seat, action = first_legal(match, "draw")
    with django_capture_on_commit_callbacks() as callbacks:
        result = services.act(match_id=match.pk, seat=seat, action=action, expected_version=0)
    assert result.version == 1
    move = Move.objects.get(match=match)
    assert (move.seq, move.seat, move.action, move.actor) == (1, seat, {"type": "draw"}, "player")
    assert move.events == [{"type": "drew", "seat": seat, "count": 1}]
    match.refresh_from_db()
    assert match.version == 1
    # Two things wait for the commit: the table's seats are told and (nobody having the table open)
    # the 30-second check for a player who is gone. The turn clock's check, queued at the deal for the
    # first turn's deadline, will do for this one too. The lobby is not told.
    assert len(callbacks) == 2
    assert match.clock_check_at is not None and match.clock_check_at < match.due_at


def test_an_illegal_move_is_refused_with_its_reason_and_nothing_is_saved(db):
    match, _users = human_match("classic")
    seat, _action = first_legal(match)
    before = dict(match.state)
    with pytest.raises(services.ActionRefused) as refusal:
        services.act(match_id=match.pk, seat=seat, action={"type": "take"})
    assert "There is no trick to take yet" in str(refusal.value)
    assert not refusal.value.stale
    match.refresh_from_db()
    assert match.state == before and match.version == 0
    assert not Move.objects.exists()


def test_out_of_turn_and_malformed_moves_are_refused(db):
    match, _users = human_match()
    seat, action = first_legal(match)
    with pytest.raises(services.ActionRefused, match="It is not your turn"):
        services.act(match_id=match.pk, seat=1 - seat, action=action)
    for garbage in ({"type": "teleport"}, {"type": "play", "card": "1Z"}, {"card": "7S"}, {}):
        with pytest.raises(services.ActionRefused, match="not a move of this game"):
            services.act(match_id=match.pk, seat=seat, action=garbage)
    assert not Move.objects.exists()


def test_only_the_seat_s_own_player_may_move_for_it(db):
    match, users = human_match()
    seat, action = first_legal(match)
    outsider = make_user("outsider")
    for stranger in (users[1 - seat], outsider):
        with pytest.raises(services.ActionRefused, match="only its players can play"):
            services.act(match_id=match.pk, seat=seat, action=action, user_id=stranger.pk)
    assert not Move.objects.exists()
    services.act(match_id=match.pk, seat=seat, action=action, user_id=users[seat].pk)
    assert Move.objects.get().seat == seat


def test_a_double_click_is_refused_as_stale(db):
    match, _users = human_match()
    seat, action = first_legal(match, "draw")
    services.act(match_id=match.pk, seat=seat, action=action, expected_version=0)
    with pytest.raises(services.ActionRefused) as refusal:
        services.act(match_id=match.pk, seat=seat, action=action, expected_version=0)
    assert refusal.value.stale
    assert Move.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_moves_on_one_match_one_wins():
    match, _users = human_match()
    seat, action = first_legal(match, "draw")
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def click() -> None:
        try:
            barrier.wait()
            services.act(match_id=match.pk, seat=seat, action=action, expected_version=0)
            outcomes.append("played")
        except services.ActionRefused as refusal:
            outcomes.append("stale" if refusal.stale else str(refusal))
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["played", "stale"]
    assert Move.objects.filter(match=match).count() == 1


def play_randomly(match: Match, moves: int, rng: random.Random) -> None:
    """Play ``moves`` random legal moves through the services, dealing rounds as they end. A card
    goes down whenever one can: drawing at random as often as playing makes an Americana match last
    thousands of moves (a median of about 2,500 at two players, against 250)."""
    for _ in range(moves):
        game, state = live_state(match)
        if game.is_over(state):
            return
        if game.awaiting_deal(state):
            services.round_deal_next(match_id=match.pk, expected_version=match.version)
            continue
        actions = [game.action_to_json(a) for a in game.legal_actions(state)]
        plays = [action for action in actions if action["type"] != "draw"]
        services.act(
            match_id=match.pk,
            seat=game.to_act(state),
            action=rng.choice(plays or actions),
            expected_version=match.version,
        )


@pytest.mark.parametrize("game_name", ["americana", "classic"])
def test_the_database_alone_rebuilds_the_live_match(db, game_name):
    """A restart loses nothing: replaying the stored moves from the seed gives the stored state."""
    match, _users = human_match(game_name, players=3)
    play_randomly(match, 150, random.Random(7))
    match.refresh_from_db()
    game = get_game(match.game)
    replayed = game.new_match(game.options_from_json(match.options), match.seed)
    for move in match.moves.order_by("seq"):
        if game.awaiting_deal(replayed):
            game.next_round(replayed)
        game.apply(replayed, game.action_from_json(move.action))
    _game, stored = live_state(match)
    if game.awaiting_deal(replayed) and not game.awaiting_deal(stored):
        game.next_round(replayed)
    assert game.state_to_json(replayed) == game.state_to_json(stored)


@pytest.mark.parametrize("game_name", ["americana", "classic"])
def test_a_whole_match_records_its_score_sheet_and_result(db, game_name):
    match, _users = human_match(game_name, players=2)
    play_randomly(match, 5_000, random.Random(3))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.table.status == "finished"
    game, state = live_state(match)
    public = game.view(state, None)
    assert match.result["winners"] == public["winners"]
    rows = list(RoundResult.objects.filter(match=match).order_by("number"))
    assert [row.number for row in rows] == list(range(1, len(rows) + 1))
    assert rows[-1].summary["totals"] == public["totals"]
    with pytest.raises(services.ActionRefused, match="The match is over"):
        services.act(match_id=match.pk, seat=0, action={"type": "draw"})


def test_a_stale_next_deal_does_nothing(db):
    match, _users = human_match("classic")
    assert services.round_deal_next(match_id=match.pk, expected_version=0) is None
    match.refresh_from_db()
    assert match.version == 0
