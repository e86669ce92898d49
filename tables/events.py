"""Group messages to websocket consumers, sent only once the transaction commits.

Messages carry ids and numbers only (they cross Redis); each consumer reads what
it needs from the database and renders its own seat's view.
"""

import asyncio
import threading
from collections.abc import Callable

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction

LOBBY_GROUP = "lobby"

_thread = threading.local()

_HERE: list[Callable[[str, dict], None]] = []
"""Who in this process hears a group message sent from it before it goes out (``hear_here_first``)."""


def hear_here_first(receiver: Callable[[str, dict], None]) -> None:
    """Hand ``receiver`` (group, message) for every group message this process sends, before the
    message goes to the channel layer: the group's members in this process hear of a change without
    waiting for it to come back from Redis. It must be quick and safe to call from any thread; the
    same message still arrives through the channel layer, for every process."""
    _HERE.append(receiver)


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def group_send(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` now, from sync code.

    On this thread's own event loop, kept from one send to the next with its Redis connection: no new
    loop and connection per message (``async_to_sync`` in a worker opens both each time), and no hop
    to a server's busy event loop. The in-memory layer (no Redis) is used from its consumers' loop.
    """
    for receiver in _HERE:
        receiver(group, message)
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.group_send)(group, message)
        return
    loop = getattr(_thread, "loop", None)
    if loop is None:
        loop = _thread.loop = asyncio.new_event_loop()
    loop.run_until_complete(layer.group_send(group, message))


def send_on_commit(group: str, message: dict, sent: Callable[[], None] | None = None) -> None:
    """Send ``message`` to ``group`` after the current transaction commits (at once outside one);
    then call ``sent``, when given."""

    def send() -> None:
        group_send(group, message)
        if sent is not None:
            sent()

    transaction.on_commit(send)


def table_changed(
    table_id: int,
    version: int = 0,
    *,
    lobby: bool = True,
    match_only: bool = False,
    sent: Callable[[], None] | None = None,
) -> None:
    """Tell the table's seats (and, when seats or status changed, the lobby) to re-render.

    ``match_only``: only the match moved on (a move, a deal), the table and its seats are as they
    were, so a viewer holding the previous version may re-read the match alone.
    ``sent``: called once the seats' news is with the channel layer (a move's time to broadcast).
    """
    message = {"type": "table.changed", "table": table_id, "version": version, "match_only": match_only}
    send_on_commit(table_group(table_id), message, sent)
    if lobby:
        send_on_commit(LOBBY_GROUP, {"type": "lobby.changed", "table": table_id})


USERS_GROUP = "users"
"""Every process's live pages listen here for news about one person (``user_banned``)."""


def user_banned(user_id: int) -> None:
    """Close every live page (table, waiting room, lobby) the person has open, in every process, once
    the ban commits: a socket opened before the ban would otherwise keep playing."""
    send_on_commit(USERS_GROUP, {"type": "user.banned", "user": user_id})
