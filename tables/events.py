"""Group messages to websocket consumers, sent only once the transaction commits.

Messages carry ids and numbers only (they cross Redis); each consumer reads what
it needs from the database and renders its own seat's view.
"""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    return f"table.{table_id}"


def send_on_commit(group: str, message: dict) -> None:
    """Send ``message`` to ``group`` after the current transaction commits (at once outside one)."""

    def send() -> None:
        async_to_sync(get_channel_layer().group_send)(group, message)

    transaction.on_commit(send)


def table_changed(table_id: int, version: int = 0, *, lobby: bool = True, match_only: bool = False) -> None:
    """Tell the table's seats (and, when seats or status changed, the lobby) to re-render.

    ``match_only``: only the match moved on (a move, a deal), the table and its seats are as they
    were, so a viewer holding the previous version may re-read the match alone.
    """
    message = {"type": "table.changed", "table": table_id, "version": version, "match_only": match_only}
    send_on_commit(table_group(table_id), message)
    if lobby:
        send_on_commit(LOBBY_GROUP, {"type": "lobby.changed", "table": table_id})
