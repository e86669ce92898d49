"""The chat over the table's own socket, on PostgreSQL and Redis: lines reach the readers they are
for, each in the reader's language; refusals reach the sender only, with the reason."""

import json

import pytest
from asgiref.sync import sync_to_async

from chat.models import ChatMessage, Room
from tests.channels import open_socket
from tests.factories import make_user
from tests.gameplay.helpers import human_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def until(socket, predicate, tries: int = 10) -> str:
    for _ in range(tries):
        frame = await socket.receive_from(timeout=5)
        if predicate(frame):
            return frame
    raise AssertionError("no such frame")


async def test_a_phrase_reaches_each_player_in_their_language_and_not_the_spectators(settings):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    watcher = await sync_to_async(make_user)("watcher")
    ro = await open_socket(f"/ws/tables/{match.table_id}/?lang=ro", users[0])
    en = await open_socket(f"/ws/tables/{match.table_id}/?lang=en", users[1])
    spectator = await open_socket(f"/ws/tables/{match.table_id}/?lang=en", watcher)
    for socket in (ro, en, spectator):
        await socket.receive_from(timeout=5)
    await ro.send_to(text_data=json.dumps({"type": "chat", "phrase": "gg", "text": ""}))
    seen_ro = await until(ro, lambda frame: "chat-log-players" in frame)
    seen_en = await until(en, lambda frame: "chat-log-players" in frame)
    assert "Joc bun!" in json.loads(seen_ro)["content"]
    assert "Good game!" in json.loads(seen_en)["content"]
    assert await spectator.receive_nothing(timeout=0.5)
    message = await sync_to_async(ChatMessage.objects.get)()
    assert message.room == Room.PLAYERS and message.phrase == "gg" and message.match_id == match.pk
    for socket in (ro, en, spectator):
        await socket.disconnect()
