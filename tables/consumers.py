"""Live lobby and waiting room: each connection re-renders its own fragment on every change."""

from functools import cached_property
from urllib.parse import parse_qs

from asgiref.sync import async_to_sync
from channels.generic.websocket import WebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation.trans_real import get_supported_language_variant, parse_accept_lang_header

from gameplay.events import LOBBY_GROUP

from . import selectors
from .forms import BotForm
from .models import Game

FORBIDDEN = 4403


def _header(scope, name: bytes) -> str:
    return next((value.decode("latin-1") for key, value in scope.get("headers", []) if key == name), "")


def scope_language(scope) -> str:
    """The language of the page that opened the websocket (it names it in the URL), else the
    language cookie, else the browser's Accept-Language."""
    cookies = scope.get("cookies") or {}
    query = parse_qs(scope.get("query_string", b"").decode())
    candidates = [query.get("lang", [""])[0], cookies.get(settings.LANGUAGE_COOKIE_NAME, "")]
    candidates += [code for code, _quality in parse_accept_lang_header(_header(scope, b"accept-language"))]
    for code in candidates:
        if not code or code == "*":
            continue
        try:
            return get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


class FragmentRendering:
    """Renders a page's fragments for the user and language of the websocket that asked."""

    scope: dict

    @cached_property
    def language(self) -> str:
        return scope_language(self.scope)

    def render(self, template: str, context: dict) -> str:
        cookies = self.scope.get("cookies") or {}
        context = {
            "user": self.scope["user"],
            # The CSRF cookie holds the secret itself, which Django accepts as a form token.
            "csrf_token": cookies.get(settings.CSRF_COOKIE_NAME, ""),
            **context,
        }
        with translation.override(self.language):
            return render_to_string(template, context)


class FragmentConsumer(FragmentRendering, WebsocketConsumer):
    """Joins a group and, on every change it hears of, sends the fragment rendered for this user."""

    def join(self, group: str) -> None:
        self.group = group
        async_to_sync(self.channel_layer.group_add)(group, self.channel_name)

    def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            async_to_sync(self.channel_layer.group_discard)(self.group, self.channel_name)

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
    host = _header(scope, b"host")
    scheme = "https" if _header(scope, b"origin").startswith("https") else "http"
    return {
        "table": table,
        "my_seat": selectors.seat_of(table=table, user=scope["user"]),
        "bot_form": BotForm(),
        "invite_url": f"{scheme}://{host}{reverse('tables:invitation', args=[table.invite_token])}",
    }
