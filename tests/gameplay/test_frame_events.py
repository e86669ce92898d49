"""The events a table frame carries, over the Redis channel layer: each frame after a change tells
the public events since that page's last frame (in order, with seats) so the page can animate and
announce them; never a card the viewer may not see, and nothing when too much went by."""

import html
import json
import random
import re

import pytest
from asgiref.sync import sync_to_async

from gameplay.frames import MOTION_KEYS
from gameplay.games.screen import LOG_LENGTH
from gameplay.models import Match, Move
from tables.models import Table
from tests.factories import make_user
from tests.gameplay.helpers import human_match
from tests.gameplay.test_consumers import (
    forget_group,
    hidden_from,
    moved_elsewhere,
    open_socket,
    random_move,
    snapshot,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

EVENTS = re.compile(r'<div id="table-events"[^>]*\sdata-events="([^"]*)"')


def events_of(frame: str) -> list[dict] | None:
    """The events a frame carries, read as the page reads them; None when it carries none."""
    found = EVENTS.search(frame)
    return json.loads(html.unescape(found.group(1))) if found else None


def moves_after(match_id: int, seq: int) -> tuple[list[dict], int]:
    """The public events of the moves after ``seq`` as a frame gives them (without their words),
    and the last move's number."""
    moves = list(Move.objects.filter(match_id=match_id, seq__gt=seq).order_by("seq"))
    events = [
        {key: event[key] for key in MOTION_KEYS if key in event} for move in moves for event in move.events
    ]
    return events, moves[-1].seq if moves else seq


def unsaid(events: list[dict]) -> list[dict]:
    return [{key: value for key, value in event.items() if key != "said"} for event in events]


def cards_in(event: dict) -> list[str]:
    return [*([event["card"]] if "card" in event else []), *event.get("cards", [])]


@pytest.mark.parametrize(("game_name", "players"), [("americana", 3), ("classic", 4)])
async def test_every_frame_tells_each_viewer_the_moves_since_its_last_and_no_hidden_card(game_name, players):
    match, users = await sync_to_async(human_match)(game_name, players, clock=90)  # public: watchable
    sockets = [await open_socket(match.table_id, user) for user in users]
    spectator = await open_socket(match.table_id, await sync_to_async(make_user)("watcher"))
    watchers = [*enumerate(sockets), (None, spectator)]
    for _seat, socket in watchers:
        assert events_of(await socket.receive_from(timeout=10)) is None  # a first frame has no motion
    rng = random.Random(players)
    seen_seq, told = 0, 0
    for _step in range(60):
        if not await sync_to_async(random_move)(match.pk, rng):
            break
        expected, last_seq = await sync_to_async(moves_after)(match.pk, seen_seq)
        state_json, awaiting, _name = await sync_to_async(snapshot)(match.pk)
        for seat, socket in watchers:
            events = events_of(await socket.receive_from(timeout=10))
            if not expected:  # the next round dealt: no move was made
                assert events is None
                continue
            assert unsaid(events) == expected
            assert all(event["said"] for event in events if event["type"] == "played")
            hidden = hidden_from(state_json, seat, game_name, awaiting)
            for event in events:
                assert not hidden.intersection(cards_in(event)), f"seat {seat} was told of {event}"
            told += len(events)
        seen_seq = last_seq
    assert told > 100
    for _seat, socket in watchers:
        await socket.disconnect()


async def current_version(match_id: int) -> int:
    return (await sync_to_async(Match.objects.get)(pk=match_id)).version


async def moves_missed(match_id: int, count: int, rng: random.Random) -> None:
    """``count`` moves made by another process while the page cannot hear of them (its group
    forgotten, as by a Redis restart)."""
    made = await sync_to_async(Move.objects.filter(match_id=match_id).count)()
    table_id = (await sync_to_async(Table.objects.get)(matches__pk=match_id)).pk
    await forget_group(table_id)
    while await sync_to_async(Move.objects.filter(match_id=match_id).count)() < made + count:
        assert await sync_to_async(moved_elsewhere)(match_id, rng)


async def test_a_page_that_missed_moves_is_told_them_unless_more_went_by_than_the_log_holds():
    match, users = await sync_to_async(human_match)("americana", 2)
    socket = await open_socket(match.table_id, users[0])
    await socket.receive_from(timeout=5)
    rng = random.Random(5)

    # Three moves unheard; a move made against the old table brings the table as it stands, and
    # with it what happened since, in order.
    await moves_missed(match.pk, 3, rng)
    expected, _last_seq = await sync_to_async(moves_after)(match.pk, 0)
    await socket.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    frame = await socket.receive_from(timeout=5)
    assert f'name="version" value="{await current_version(match.pk)}"' in frame
    assert unsaid(events_of(frame)) == expected and len(expected) >= 3

    # More moves unheard than the log holds: the table as it stands, without motion.
    await moves_missed(match.pk, LOG_LENGTH + 1, rng)
    await socket.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    frame = await socket.receive_from(timeout=5)
    assert f'name="version" value="{await current_version(match.pk)}"' in frame
    assert events_of(frame) is None
    await socket.disconnect()
