"""A socket's frames spend from its person's budget (a visitor's: their address's), kept in Redis:
a page closed for a flood and opened again starts where it left off, not afresh."""

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import RequestFactory

from tables.consumers import TOO_MANY_FRAMES
from tests.channels import communicator
from tests.factories import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ONLY_UPDATES = "only sends updates"


@pytest.fixture
def tight(settings):
    """Three frames, and next to nothing refilled while the test runs."""
    settings.SOCKET_FRAMES_BURST = 3
    settings.SOCKET_FRAMES_PER_SECOND = 0.01


async def lobby(user=None, address: str = "127.0.0.1"):
    socket = await communicator("/ws/lobby/?lang=en", user)
    socket.scope["client"] = (address, 50000)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def answered(socket) -> bool:
    """Send a frame: True when it is answered, False when it closes the socket for too many."""
    await socket.send_to(text_data="hello")
    reply = await socket.receive_from(timeout=5)
    if ONLY_UPDATES in reply:
        return True
    assert "too many messages too quickly" in json.loads(reply)["content"]
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": TOO_MANY_FRAMES}
    return False


async def test_a_person_who_floods_and_reconnects_is_still_refused(tight):
    ana, ion = await sync_to_async(make_user)("ana"), await sync_to_async(make_user)("ion")
    first = await lobby(ana)
    assert [await answered(first) for _frame in range(4)] == [True, True, True, False]
    again = await lobby(ana, address="198.51.100.7")  # another socket, even from elsewhere
    assert not await answered(again)
    someone_else = await lobby(ion)
    assert await answered(someone_else)
    await someone_else.disconnect()


async def test_a_visitors_budget_is_their_addresss(tight):
    first = await lobby(address="203.0.113.5")
    assert [await answered(first) for _frame in range(4)] == [True, True, True, False]
    assert not await answered(await lobby(address="203.0.113.5"))
    elsewhere = await lobby(address="198.51.100.7")
    assert await answered(elsewhere)
    await elsewhere.disconnect()


async def test_a_socket_has_the_address_its_page_has(settings):
    """Behind a proxy, the last address of its header, as for a page's request; else the connection's."""
    from accounts.services import client_address, socket_address

    settings.CLIENT_ADDRESS_HEADER = "HTTP_X_FORWARDED_FOR"
    forwarded = "10.9.9.9, 203.0.113.9"
    scope = {"client": ("127.0.0.1", 50000), "headers": [(b"x-forwarded-for", forwarded.encode())]}
    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert socket_address(scope) == client_address(request) == "203.0.113.9"
    assert socket_address({"client": ("127.0.0.1", 50000), "headers": []}) == "127.0.0.1"
    settings.CLIENT_ADDRESS_HEADER = ""
    assert socket_address(scope) == "127.0.0.1"
