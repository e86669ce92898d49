"""Moderation from Django admin, end to end on PostgreSQL, Redis and a real Celery worker: each action
reaches every seat's open table at once, and the match stops or goes on as it should; a ban takes the
person off every table they sit at and closes their live pages."""

import asyncio
import json
import re

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.test import Client
from django.urls import reverse

from accounts import services as account_services
from gameplay import services as gameplay_services
from gameplay.models import Match, Move, SeatChange
from tables import events
from tables import services as table_services
from tables.models import Seat, Table
from tests.channels import open_socket
from tests.factories import make_user
from tests.gameplay.helpers import first_legal, human_match

VERSION = re.compile(r'name="version" value="(\d+)"')

pytestmark = pytest.mark.usefixtures("quick_pauses")


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


async def closed(socket) -> bool:
    """Frames until the server closes the socket."""
    for _ in range(20):
        if (await socket.receive_output(timeout=5))["type"] == "websocket.close":
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
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
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
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_player_removed_mid_turn_is_replaced_and_the_bot_plays_on(celery_worker, name):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    mover, _action = await sync_to_async(first_legal)(match)
    sockets = [await open_socket(f"/ws/tables/{match.table_id}/", user) for user in users]
    for socket in sockets:
        await socket.receive_from(timeout=5)
    await sync_to_async(admin_action)(*await sync_to_async(target)(match, name))
    watcher, removed = sockets[1 - mover], sockets[mover]
    assert await version_seen(watcher, 1), "every seat sees the bot take the seat"
    assert await version_seen(watcher, 2), "the bot plays the turn at once"
    assert await Move.objects.filter(match=match, seat=mover, actor=Move.Actor.BOT).aexists()
    seat = await Seat.objects.aget(table_id=match.table_id, position=mover)
    assert seat.user_id is None and seat.bot_level == "normal"
    if name == "ban":
        await sync_to_async(users[mover].refresh_from_db)()
        assert not users[mover].is_active
        assert await closed(removed), "a banned person's pages close at once"
    else:
        assert await version_seen(removed, 1)
        # The removed person's old connection can no longer play for the seat.
        await removed.send_to(text_data=json.dumps({"version": 2, "type": "draw"}))
        assert await seen(removed, "only its players can play")
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_ban_from_the_list_of_users_stands_a_bot_in_at_once_and_closes_their_pages(celery_worker):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    mover, _action = await sync_to_async(first_legal)(match)
    banned = users[mover]
    layer = get_channel_layer()
    pages = await layer.new_channel()
    await layer.group_add(events.USERS_GROUP, pages)
    watcher = await open_socket(f"/ws/tables/{match.table_id}/", users[1 - mover])
    own = await open_socket(f"/ws/tables/{match.table_id}/", banned)
    for socket in (watcher, own):
        await socket.receive_from(timeout=5)
    await sync_to_async(admin_action)("admin:accounts_user_changelist", "deactivate", banned.pk)
    news = await asyncio.wait_for(layer.receive(pages), timeout=5)
    assert news == {"type": "user.banned", "user": banned.pk}, "every live page of theirs is told to close"
    assert await closed(own)
    assert await version_seen(watcher, 2), "a bot took the seat and played the turn at once"
    seat = await Seat.objects.aget(table_id=match.table_id, position=mover)
    assert seat.user_id is None and seat.bot_level == "normal"
    await layer.group_discard(events.USERS_GROUP, pages)
    for socket in (watcher, own):
        await socket.disconnect()


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, dict]]:
    """The channel-layer messages sent, as (group, message), instead of sending them."""
    messages: list[tuple[str, dict]] = []
    monkeypatch.setattr(events, "group_send", lambda group, message: messages.append((group, message)))
    return messages


def test_a_ban_takes_the_person_off_every_table_in_play(ana, ion, sent, django_capture_on_commit_callbacks):
    eva, boss = make_user("eva"), make_user("boss", is_staff=True, is_superuser=True)

    def new_table(host, players: int = 3) -> Table:
        return gameplay_services.table_create(
            host=host, game="americana", options={"players": players}, turn_clock=45, is_private=False
        )

    hosted, alone, guest = new_table(ana), new_table(ana), new_table(eva)
    played, running = new_table(ion, players=2), new_table(ion, players=2)
    for table, user in ((hosted, ion), (guest, ana), (played, ana), (running, ana)):
        table_services.seat_take(table_id=table.pk, user=user)
    Table.objects.filter(pk=played.pk).update(status=Table.Status.FINISHED)
    Match.objects.filter(table=played).update(status=Match.Status.FINISHED)
    rematch = gameplay_services.rematch_offer(table_id=played.pk, by=ion)
    assert rematch.seats.filter(reserved_for=ana).exists()

    with django_capture_on_commit_callbacks(execute=True):
        account_services.user_ban(user=ana, by=boss)
        assert not any(group == events.USERS_GROUP for group, _message in sent), "not before the commit"
    assert [message for group, message in sent if group == events.USERS_GROUP] == [
        {"type": "user.banned", "user": ana.pk}
    ]
    assert not Seat.objects.filter(user=ana).exclude(table=played).exists()
    assert not Seat.objects.filter(reserved_for=ana).exists(), "no seat is kept for them any more"
    hosted.refresh_from_db()
    alone.refresh_from_db()
    assert (hosted.status, hosted.host) == (Table.Status.WAITING, ion), (
        "the host's table goes on without them"
    )
    assert alone.status == Table.Status.CLOSED
    assert Table.objects.get(pk=guest.pk).status == Table.Status.WAITING
    seat = Seat.objects.get(table=running, position=1)
    assert seat.user is None and seat.bot_level == "normal"
    change = SeatChange.objects.get(match__table=running)
    assert change.kind == SeatChange.Kind.REPLACED and change.seat == 1
