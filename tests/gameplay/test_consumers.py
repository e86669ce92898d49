"""The table's websocket over the Redis channel layer: each seat sees its own hand, and nothing hidden."""

import json
import random
import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import translation

from gameplay import services
from gameplay.engine import get_game
from gameplay.models import Match, Move
from gameplay.reasons import card_name
from tables.models import Table
from tests.channels import open_socket as open_table_socket
from tests.factories import make_user
from tests.gameplay.helpers import human_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def open_socket(table_id: int, user) -> WebsocketCommunicator:
    return await open_table_socket(f"/ws/tables/{table_id}/", user)


def without_log(frame: str) -> str:
    """The frame less its log: the log retells public plays, and a card played long ago
    may since have been shuffled back into the stock or drawn into a hand."""
    return re.sub(r'<ol id="log".*?</ol>', "", frame, flags=re.S)


def mentions(frame: str, code: str) -> bool:
    """Whether a frame shows a card, by its code or by its spoken name."""
    with translation.override("en"):
        spoken = card_name(code)
    return bool(re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", frame)) or spoken in frame


def hidden_from(state_json: dict, seat: int | None, game_name: str, awaiting: bool) -> set[str]:
    """Card codes a seat must not see now: other hands (unless laid open at a round's end) and the stock."""
    hidden = set(state_json["stock"])
    if not awaiting:
        for index, hand in enumerate(state_json["hands"]):
            if index != seat:
                hidden.update(hand)
    return hidden


def random_move(match_id: int, rng: random.Random) -> bool:
    match = Match.objects.get(pk=match_id)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if game.is_over(state):
        return False
    if game.awaiting_deal(state):
        services.round_deal_next(match_id=match_id, expected_version=match.version)
        return True
    action = rng.choice([game.action_to_json(a) for a in game.legal_actions(state)])
    services.act(match_id=match_id, seat=game.to_act(state), action=action, expected_version=match.version)
    return True


def snapshot(match_id: int) -> tuple[dict, bool, str]:
    match = Match.objects.get(pk=match_id)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    return match.state, game.awaiting_deal(state) or game.is_over(state), match.game


@pytest.mark.parametrize(("game_name", "players"), [("americana", 3), ("classic", 2), ("classic", 4)])
async def test_no_frame_ever_shows_a_seat_another_hand_or_the_stock(game_name, players):
    match, users = await sync_to_async(human_match)(game_name, players)
    sockets = [await open_socket(match.table_id, user) for user in users]
    await sync_to_async(Table.objects.filter(pk=match.table_id).update)(is_private=False, turn_clock=90)
    spectator = await open_socket(match.table_id, await sync_to_async(make_user)("watcher"))
    watchers = [*enumerate(sockets), (None, spectator)]
    rng = random.Random(players)
    checked = 0
    for step in range(70):
        state_json, awaiting, _name = await sync_to_async(snapshot)(match.pk)
        for seat, socket in watchers:
            frame = without_log(await socket.receive_from(timeout=10))
            for code in hidden_from(state_json, seat, game_name, awaiting):
                assert not mentions(frame, code), f"step {step}: seat {seat} was shown {code}"
            if seat is not None and not awaiting:
                for code in state_json["hands"][seat]:
                    assert f'value="{code}"' in frame, f"seat {seat} does not see its own {code}"
            checked += 1
        if not await sync_to_async(random_move)(match.pk, rng):
            break
    assert checked > 100
    for socket in [*sockets, spectator]:
        await socket.disconnect()


async def test_moves_by_frame_and_errors_for_this_connection_only():
    match, users = await sync_to_async(human_match)("americana", 2)
    first, second = [await open_socket(match.table_id, user) for user in users]
    await first.receive_from(timeout=5)
    await second.receive_from(timeout=5)
    state_json, _awaiting, _name = await sync_to_async(snapshot)(match.pk)
    to_act = state_json["to_act"]
    mover, other = (first, second) if to_act == 0 else (second, first)

    # An illegal card: the reason, to the mover only; nothing saved.
    await mover.send_to(text_data=json.dumps({"version": 0, "type": "take"}))
    notice = await mover.receive_from(timeout=5)
    assert 'id="notice"' in notice and "Nothing is waiting for you to take." in notice
    assert await other.receive_nothing(timeout=0.3)

    # Forged and malformed frames: an error, never a crash, nothing saved.
    for forged in [
        "not json",
        "[]",
        json.dumps({"type": "draw"}),
        json.dumps({"version": "x"}),
        json.dumps({"version": 0, "type": "play"}),
        json.dumps({"version": 0, "type": "steal"}),
        "x" * 10_000,
    ]:
        await mover.send_to(text_data=forged)
        assert 'id="notice"' in await mover.receive_from(timeout=5)
    # Acting for the other seat is impossible: the seat comes from the login, not the frame.
    await other.send_to(text_data=json.dumps({"version": 0, "type": "draw", "seat": to_act}))
    assert "It is not your turn." in await other.receive_from(timeout=5)
    assert await sync_to_async(Move.objects.count)() == 0

    # A real move: everyone gets the new table.
    await mover.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    assert 'name="version" value="1"' in await mover.receive_from(timeout=5)
    assert 'name="version" value="1"' in await other.receive_from(timeout=5)
    # The same click again (double click, second tab): stale, answered with the current table.
    await mover.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    assert 'name="version" value="1"' in await mover.receive_from(timeout=5)
    assert await sync_to_async(Move.objects.count)() == 1
    await first.disconnect()
    await second.disconnect()


async def test_a_spectator_cannot_play_and_a_reconnect_gets_the_current_table():
    match, users = await sync_to_async(human_match)("classic", 2)
    watcher = await sync_to_async(make_user)("watcher")
    await sync_to_async(Table.objects.filter(pk=match.table_id).update)(is_private=False, turn_clock=90)
    spectator = await open_socket(match.table_id, watcher)
    assert "You are watching this table." in await spectator.receive_from(timeout=5)
    await spectator.send_to(text_data=json.dumps({"version": 0, "type": "end"}))
    assert "only its players can play" in await spectator.receive_from(timeout=5)
    await spectator.disconnect()
    await sync_to_async(random_move)(match.pk, random.Random(1))
    again = await open_socket(match.table_id, users[0])
    assert 'name="version" value="1"' in await again.receive_from(timeout=5)
    await again.disconnect()
