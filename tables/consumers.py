"""Live lobby and waiting room: each connection re-renders its own fragment on every change."""

import contextlib
from urllib.parse import parse_qs

from asgiref.sync import async_to_sync
from channels.generic.websocket import WebsocketConsumer
from django.urls import reverse

from . import selectors
from .events import LOBBY_GROUP
from .forms import BotForm
from .fragments import SOCKET_CLOSED, FragmentRendering, scope_header
from .models import Game


class FragmentConsumer(FragmentRendering, WebsocketConsumer):
    """Joins a group and, on every change it hears of, sends the fragment rendered for this user."""

    def join(self, group: str) -> None:
        self.group = group
        async_to_sync(self.channel_layer.group_add)(group, self.channel_name)

    def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            async_to_sync(self.channel_layer.group_discard)(self.group, self.channel_name)

    def send(self, text_data=None, bytes_data=None, close=False) -> None:
        with contextlib.suppress(SOCKET_CLOSED):
            super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    def receive(self, text_data=None, bytes_data=None) -> None:
        """These pages only listen; anything sent is answered with an error, never acted on."""
        self.send(text_data='{"error": "This connection only sends updates."}')


class LobbyConsumer(FragmentConsumer):
    def connect(self) -> None:
        game = parse_qs(self.scope.get("query_string", b"").decode()).get("game", [""])[0]
        self.game = game if game in Game.values else None
        self.join(LOBBY_GROUP)
        self.accept()

    def lobby_changed(self, event: dict) -> None:
        tables = selectors.open_tables(game=self.game)
        self.send(text_data=self.render("tables/lobby.html#table-list", {"tables": tables}))


def room_context(table, scope) -> dict:
    """The waiting room's context for a websocket viewer (the page view builds the same from its request)."""
    host = scope_header(scope, b"host")
    scheme = "https" if scope_header(scope, b"origin").startswith("https") else "http"
    return {
        "table": table,
        "my_seat": selectors.seat_of(table=table, user=scope["user"]),
        "seats": selectors.seat_choices(table=table, user=scope["user"]),
        "bot_form": BotForm(),
        "invite_url": f"{scheme}://{host}{reverse('tables:invitation', args=[table.invite_token])}",
    }
