"""The live lobby and waiting room over real websockets and the Redis channel layer."""

import json
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.template.backends.django import Template as DjangoTemplate

from config.asgi import application
from gameplay import services as gameplay_services
from tables import selectors, services
from tables.consumers import TOO_MANY_FRAMES
from tests.channels import communicator
from tests.channels import open_socket as connect
from tests.factories import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_lobby_shows_a_new_table_and_its_filling_without_reload():
    ana = await sync_to_async(make_user)("ana")
    lobby = await connect("/ws/lobby/")
    table = await sync_to_async(gameplay_services.table_create)(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    fragment = await lobby.receive_from(timeout=5)
    assert 'id="lobby-tables"' in fragment and f'id="table-{table.pk}"' in fragment
    ion = await sync_to_async(make_user)("ion")
    await sync_to_async(services.seat_take)(table_id=table.pk, user=ion)
    fragment = await lobby.receive_from(timeout=5)
    assert f'id="table-{table.pk}"' not in fragment, "a started table leaves the lobby"
    await lobby.disconnect()


async def test_lobby_filter_and_private_tables_stay_out():
    ana = await sync_to_async(make_user)("ana")
    lobby = await connect("/ws/lobby/?game=classic")
    await sync_to_async(gameplay_services.table_create)(
        host=ana, game="americana", options={}, turn_clock=45, is_private=False
    )
    assert "table-card" not in await lobby.receive_from(timeout=5)
    await sync_to_async(gameplay_services.table_create)(
        host=ana, game="classic", options={}, turn_clock=0, is_private=True
    )
    assert "table-card" not in await lobby.receive_from(timeout=5)
    await lobby.disconnect()


async def test_waiting_room_updates_each_viewer_with_their_own_buttons():
    ana, ion = await sync_to_async(make_user)("ana"), await sync_to_async(make_user)("ion")
    table = await sync_to_async(gameplay_services.table_create)(
        host=ana, game="americana", options={"players": 3}, turn_clock=45, is_private=False
    )
    host_view = await connect(f"/ws/tables/{table.pk}/", ana)
    guest_view = await connect(f"/ws/tables/{table.pk}/", ion)
    # On connecting, each viewer is sent the room as it stands.
    assert "Sit here" not in await host_view.receive_from(timeout=5)
    assert "Sit here" in await guest_view.receive_from(timeout=5)
    await sync_to_async(services.bot_add)(table_id=table.pk, by=ana, position=2, level="easy")
    for_host = await host_view.receive_from(timeout=5)
    for_guest = await guest_view.receive_from(timeout=5)
    assert "Bot (easy)" in for_host and "Bot (easy)" in for_guest
    assert "Remove the bot" in for_host and "Remove the bot" not in for_guest
    assert "Sit here" in for_guest and "Sit here" not in for_host
    await host_view.disconnect()
    await guest_view.disconnect()


async def test_private_waiting_room_refuses_strangers_and_frames_are_not_acted_on():
    ana, eva = await sync_to_async(make_user)("ana"), await sync_to_async(make_user)("eva")
    table = await sync_to_async(gameplay_services.table_create)(
        host=ana, game="classic", options={}, turn_clock=0, is_private=True
    )
    stranger = await communicator(f"/ws/tables/{table.pk}/", eva)
    connected, code = await stranger.connect()
    assert not connected and code == 4403
    host_view = await connect(f"/ws/tables/{table.pk}/", ana)
    assert 'id="table-room"' in await host_view.receive_from(timeout=5)
    await host_view.send_to(text_data='{"type": "sit", "position": 1, "version": 0}')
    assert "The match has not started yet." in await host_view.receive_from(timeout=5)
    await host_view.disconnect()


async def test_websockets_from_another_origin_are_refused():
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_a_lobby_change_is_read_once_per_filter_and_rendered_once_per_language():
    ana = await sync_to_async(make_user)("ana")
    pages = {
        "en": [await connect("/ws/lobby/?lang=en") for _ in range(3)],
        "ro": [await connect("/ws/lobby/?lang=ro") for _ in range(2)],
        "classic": [await connect("/ws/lobby/?game=classic&lang=en")],
    }
    renders = 0
    render = DjangoTemplate.render

    def counted(template, *args, **kwargs):
        nonlocal renders
        renders += 1
        return render(template, *args, **kwargs)

    with (
        mock.patch.object(selectors, "open_tables", wraps=selectors.open_tables) as reads,
        mock.patch.object(DjangoTemplate, "render", counted),
    ):
        table = await sync_to_async(gameplay_services.table_create)(
            host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
        )
        frames = {
            kind: [await page.receive_from(timeout=5) for page in group] for kind, group in pages.items()
        }
    assert reads.call_count == 2  # every filter, then classic
    assert renders == 3  # (every game, en), (every game, ro), (classic, en)
    for kind, expected in [("en", "hosted by ana"), ("ro", "gazdă: ana")]:
        assert all(f'id="table-{table.pk}"' in frame and expected in frame for frame in frames[kind])
    assert "table-card" not in frames["classic"][0]
    for group in pages.values():
        for page in group:
            await page.disconnect()


async def test_a_lobby_socket_sending_too_many_frames_is_closed_and_told_why(settings):
    settings.SOCKET_FRAMES_BURST = 3
    settings.SOCKET_FRAMES_PER_SECOND = 0.01
    lobby = await connect("/ws/lobby/?lang=en")
    for _frame in range(3):
        await lobby.send_to(text_data="hello")
        assert "only sends updates" in await lobby.receive_from(timeout=5)
    for _frame in range(100):
        await lobby.send_to(text_data="hello")
    closing = json.loads(await lobby.receive_from(timeout=5))
    assert "too many messages too quickly" in closing["content"]
    assert await lobby.receive_output(timeout=5) == {"type": "websocket.close", "code": TOO_MANY_FRAMES}
