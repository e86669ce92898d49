"""Group messages to websocket consumers, sent only once the transaction commits.

Messages carry ids and numbers only (they cross Redis); each consumer reads what
it needs from the database and renders its own seat's view.
"""

from collections.abc import Callable

import redis
from asgiref.sync import async_to_sync
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.db import transaction

LOBBY_GROUP = "lobby"

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

    Over Redis, one synchronous ``PUBLISH`` on the group's pub/sub channel, as the channel layer's own
    ``group_send`` would make it (``publish``), without running an event loop for it: a move's news
    goes out from the thread that made it. Any other layer (the embedded site's in memory) is used
    through its own ``group_send``.
    """
    for receiver in _HERE:
        receiver(group, message)
    layer = get_channel_layer()
    if isinstance(layer, RedisPubSubChannelLayer):
        publish(layer, group, message)
    else:
        async_to_sync(layer.group_send)(group, message)


def publish(layer: RedisPubSubChannelLayer, group: str, message: dict) -> None:
    """``RedisPubSubChannelLayer.group_send`` for the site's one Redis (the layer's hosts, one shard):
    the message serialized by the layer, published on the channel its subscribers listen to."""
    config = settings.CHANNEL_LAYERS[DEFAULT_CHANNEL_LAYER]["CONFIG"]
    (host,) = config["hosts"]
    client = _publishers.get(host)
    if client is None:
        client = _publishers.setdefault(host, redis.Redis.from_url(host))
    client.publish(f"{config['prefix']}__group__{group}", layer.serialize(message))


_publishers: dict[str, redis.Redis] = {}
"""A client (a pool of connections, safe across threads) per Redis address ``publish`` sends to."""


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
