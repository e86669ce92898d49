"""Websockets as a logged-in browser opens them, for the consumer tests."""

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application

ORIGIN = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


def session_headers(user) -> list[tuple[bytes, bytes]]:
    """The headers a browser sends: the site's origin and, logged in, a real session cookie."""
    if user is None:
        return ORIGIN
    client = Client()
    client.force_login(user)
    return [*ORIGIN, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


async def communicator(path: str, user=None) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, path, headers=await sync_to_async(session_headers)(user))


async def open_socket(path: str, user=None) -> WebsocketCommunicator:
    socket = await communicator(path, user)
    connected, _ = await socket.connect()
    assert connected
    return socket
