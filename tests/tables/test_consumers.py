"""The live lobby and waiting room over real websockets and the Redis channel layer."""

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from gameplay import services as gameplay_services
from tables import services
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
