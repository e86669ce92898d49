"""Rendering a page's fragments for a websocket, in the language and as the user of the page that
opened it. Shared by every live page (the lobby, the waiting room, the table)."""

import json
from functools import cached_property
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import format_html
from django.utils.translation.trans_real import get_supported_language_variant, parse_accept_lang_header

FORBIDDEN = 4403
"""The close code for a websocket its user may not open (a private table, say), or may no longer keep
open (a person banned while the page was open)."""

SOCKET_CLOSED = Disconnected
"""What Daphne raises when an update goes out on a socket its page has just closed: the page's
disconnect is already on its way (and with it the connection's cleanup), so the update is dropped."""


def closing_notice(words: str) -> str:
    """A frame that puts ``words`` at the top of the live page that opened the socket (the lobby, a
    waiting room, a table: each has ``#main``), sent just before the socket is closed for good."""
    notice = format_html(
        '<ul class="messages" role="alert" data-testid="socket-closed">'
        '<li class="message message-error">{}</li></ul>',
        words,
    )
    return json.dumps({"content": notice, "target": "#main", "swap": "afterbegin"})


def scope_header(scope, name: bytes) -> str:
    return next((value.decode("latin-1") for key, value in scope.get("headers", []) if key == name), "")


def scope_language(scope) -> str:
    """The language of the page that opened the websocket (it names it in the URL), else the
    language cookie, else the browser's Accept-Language."""
    cookies = scope.get("cookies") or {}
    query = parse_qs(scope.get("query_string", b"").decode())
    candidates = [query.get("lang", [""])[0], cookies.get(settings.LANGUAGE_COOKIE_NAME, "")]
    candidates += [
        code for code, _quality in parse_accept_lang_header(scope_header(scope, b"accept-language"))
    ]
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
        if translation.get_language() == self.language:  # a table's update sets it once for all its fragments
            return render_to_string(template, context)
        with translation.override(self.language):
            return render_to_string(template, context)
