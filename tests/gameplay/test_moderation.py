"""Moderation from Django admin, end to end on PostgreSQL, Redis and a real Celery worker: each action
reaches every seat's open table at once, and the match stops or goes on as it should."""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from gameplay.models import Match, Move
from tables.models import Seat, Table
from tests.channels import open_socket
from tests.factories import make_user
from tests.gameplay.helpers import first_legal, human_match

VERSION = re.compile(r'name="version" value="(\d+)"')

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("quick_pauses"),
]


def admin_action(changelist: str, action: str, pk: int) -> None:
    client = Client()
    client.force_login(make_user("moderator", is_staff=True, is_superuser=True))
    response = client.post(reverse(changelist), {"action": action, "_selected_action": [pk]})
    assert response.status_code == 302


def target(match: Match, name: str) -> tuple[str, str, int]:
    """The changelist, action and row for one moderator's action on ``match`` (on the mover's seat)."""
    mover, _action = first_legal(match)
    seat = Seat.objects.get(table_id=match.table_id, position=mover)
    return {
        "close": ("admin:tables_table_changelist", "close_tables", match.table_id),
        "abort": ("admin:gameplay_match_changelist", "abort_matches", match.pk),
        "replace": ("admin:tables_seat_changelist", "replace_with_bot", seat.pk),
        "ban": ("admin:tables_seat_changelist", "deactivate_players", seat.pk),
    }[name]


async def seen(socket, text: str) -> bool:
    """Frames until one says ``text`` (the bots may play on meanwhile)."""
    for _ in range(20):
        if text in await socket.receive_from(timeout=5):
            return True
    return False


async def version_seen(socket, version: int) -> bool:
    """Frames until one shows the table at ``version`` or later (a quick bot may already have moved on)."""
    for _ in range(20):
        shown = VERSION.findall(await socket.receive_from(timeout=5))
        if shown and int(shown[-1]) >= version:
            return True
    return False


@pytest.mark.parametrize("name", ["close", "abort"])
async def test_closing_or_aborting_stops_the_match_on_every_screen(celery_worker, name):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    sockets = [await open_socket(f"/ws/tables/{match.table_id}/", user) for user in users]
    for socket in sockets:
        await socket.receive_from(timeout=5)
    await sync_to_async(admin_action)(*await sync_to_async(target)(match, name))
    for socket in sockets:
        assert "The match was stopped" in await socket.receive_from(timeout=5)
    await sync_to_async(match.refresh_from_db)()
    assert match.status == Match.Status.ABORTED
    assert (await Table.objects.aget(pk=match.table_id)).status == Table.Status.CLOSED
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.parametrize("name", ["replace", "ban"])
async def test_a_player_removed_mid_turn_is_replaced_and_the_bot_plays_on(celery_worker, name):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    mover, _action = await sync_to_async(first_legal)(match)
    sockets = [await open_socket(f"/ws/tables/{match.table_id}/", user) for user in users]
    for socket in sockets:
        await socket.receive_from(timeout=5)
    await sync_to_async(admin_action)(*await sync_to_async(target)(match, name))
    for socket in sockets:
        assert await version_seen(socket, 1), "every seat sees the bot take the seat"
    watcher = sockets[1 - mover]
    assert await version_seen(watcher, 2), "the bot plays the turn at once"
    assert await Move.objects.filter(match=match, seat=mover, actor=Move.Actor.BOT).aexists()
    seat = await Seat.objects.aget(table_id=match.table_id, position=mover)
    assert seat.user_id is None and seat.bot_level == "normal"
    if name == "ban":
        await sync_to_async(users[mover].refresh_from_db)()
        assert not users[mover].is_active
    # The removed person's old connection can no longer play for the seat.
    await sockets[mover].send_to(text_data=json.dumps({"version": 2, "type": "draw"}))
    assert await seen(sockets[mover], "only its players can play")
    for socket in sockets:
        await socket.disconnect()
