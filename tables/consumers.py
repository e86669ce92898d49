"""Live pages' websockets: the lobby, and what every live page's socket has in common (the table's and
waiting room's socket, in gameplay, builds on it).

Each process has one place in the channel layer's groups for all its live pages of a kind
(``ProcessNews``), rather than one per socket: a change is read from the channel layer once per
process and handed to the pages there. Every person (a visitor: every address) has a budget of
frames across their sockets (``LiveConsumer``), and a person banned has their sockets closed at
once, in every process (``tables.events.user_banned``).
"""

import asyncio
import contextlib
import logging
import math
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from functools import cached_property, partial
from urllib.parse import parse_qs

from asgiref.sync import SyncToAsync
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, connections
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from redis.exceptions import ConnectionError as RedisConnectionError

from accounts import limits
from accounts.services import socket_address

from . import selectors
from .events import LOBBY_GROUP, USERS_GROUP
from .forms import BotForm
from .fragments import FORBIDDEN, SOCKET_CLOSED, FragmentRendering, closing_notice, scope_header
from .keyed_pages import KeyedPages
from .models import Game

logger = logging.getLogger(__name__)

TRY_AGAIN_LATER = 4013
"""Closed for a retry: the channel layer is out of reach (1013's meaning, in the range a server may
send), a close code the page's websocket reconnects after."""

TOO_MANY_FRAMES = 4029
"""Closed for sending frames faster than any person plays (``SOCKET_FRAMES_PER_SECOND``,
``SOCKET_FRAMES_BURST``; 429's meaning): the page says so and does not reconnect."""

TOO_MANY_FRAMES_WORDS = gettext_noop(
    "This page sent too many messages too quickly, so its connection was closed. Reload the page to carry on."
)
BANNED_WORDS = gettext_noop("Your account has been deactivated: this page no longer updates.")

TRUSTED_FOR_SECONDS = 1.0
"""How long a database connection that ended a call without error is taken as alive, without Django's
health check (``CONN_HEALTH_CHECKS``)."""

_healthy = threading.local()
"""This thread's connections' last good end of a call (``time.monotonic()``), by database alias."""


class OffThread(SyncToAsync):
    """``channels.db.database_sync_to_async``: stale connections closed on the thread before and after
    the call. Django resets its health check there too, so every call's first statement would come
    after a ``SELECT 1`` of its own (a round trip more on every move); a connection that ended a call
    without error within ``TRUSTED_FOR_SECONDS`` counts as checked. One that broke since fails its
    statement, is marked so, and is checked and replaced on the next call."""

    def thread_handler(self, loop, *args, **kwargs):
        close_old_connections()
        now, good = time.monotonic(), vars(_healthy)
        for database in connections.all(initialized_only=True):
            if (
                database.connection is not None
                and now - good.get(database.alias, -math.inf) < TRUSTED_FOR_SECONDS
            ):
                database.health_check_done = True
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            now = time.monotonic()
            for database in connections.all(initialized_only=True):
                if database.connection is not None and not database.errors_occurred:
                    good[database.alias] = now
            close_old_connections()


off_thread = partial(OffThread, thread_sensitive=False)
"""Reads, renders and moves run on a pool of threads (each with its own database connection), so
one page's database round trips never hold up the others' updates."""


RECEIVING_ENDED = {"type": "receiving.ended"}
"""Put in a page's ``news`` when its socket's receiving ends (on an error; a disconnect stops the page
before): the error is raised where the page's messages are read."""


class LiveConsumer(FragmentRendering, AsyncWebsocketConsumer):
    """A live page's socket. Its news comes through ``news``, handed over by its process's
    ``ProcessNews``, rather than through a channel of its own; its frames spend a budget; whatever
    ends the connection (the client leaving, a crash, the server shutting down), ``clean_up`` runs."""

    closing = False
    """Closed for good by the server: nothing more is read or sent but the disconnect."""
    news: asyncio.Queue
    socket_message_handled: asyncio.Event
    frames: limits.Budget

    async def __call__(self, scope, receive, send) -> None:
        try:
            await self.serve(scope, receive, send)
        except (RedisConnectionError, OSError):
            # The channel layer went out of reach: close, so the page retries later, with a line in
            # the log rather than a traceback for every try.
            logger.warning("%s: the channel layer is out of reach.", scope["path"])
            with contextlib.suppress(Exception):
                await self.close(code=TRY_AGAIN_LATER)
        finally:
            await self.clean_up()

    async def serve(self, scope, receive, send) -> None:
        """``AsyncConsumer.__call__``, with the page's news read from ``news`` rather than from a
        channel of this connection's own (its name still identifies the connection). The socket's own
        messages join the news in that one queue (``_pump``), so a message is one wake-up of this
        task, where channels' ``await_many_dispatch`` made a task and a wait for each."""
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.channel_name = f"live-page.{uuid.uuid4().hex}"
        self.base_send = send
        self.news = asyncio.Queue()
        self.socket_message_handled = asyncio.Event()
        self.frames = frame_budget(scope)
        pump = asyncio.ensure_future(self._pump(receive))
        pump.add_done_callback(lambda _pump: self.news.put_nowait(RECEIVING_ENDED))
        try:
            with contextlib.suppress(StopConsumer):
                while (message := await self.news.get()) is not RECEIVING_ENDED:
                    await self.dispatch(message)
                    if message["type"].startswith("websocket."):
                        self.socket_message_handled.set()
                pump.result()  # what ended the socket's receiving, raised here
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump

    async def _pump(self, receive) -> None:
        """The socket's messages, put in ``news`` one at a time: the next is read once this one is
        handled, so the news heard meanwhile comes before it. Frames read ahead in a flood would push
        the page's news (its own chat lines, the moves) behind every frame sent, and the page would be
        closed for the flood before it was told what it had said."""
        while True:
            self.news.put_nowait(await receive())
            await self.socket_message_handled.wait()
            self.socket_message_handled.clear()

    async def dispatch(self, message: dict) -> None:
        """``AsyncConsumer.dispatch`` without its ``aclose_old_connections``, a hop to the one shared
        sync thread before every message (each viewer's every update). Nothing here touches the
        database on the event loop: reads and moves run through ``off_thread``, which closes stale
        connections on the thread it uses. Once the socket is closing, only its end is heard."""
        if self.closing and message["type"] != "websocket.disconnect":
            return
        handler = self.handler_for(message)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    def handler_for(self, message: dict) -> Callable[[dict], Awaitable[None]] | None:
        """What handles ``message`` on this page (None: nothing does): the method its type names."""
        return getattr(self, get_handler_name(message), None)

    async def clean_up(self) -> None:
        """Undo what ``connect`` did, once, whatever became of it."""

    @property
    def user_id(self) -> int | None:
        return self.scope["user"].pk

    @cached_property
    def address(self) -> str:
        """The browser's address (as a page's request has it), which the per-address budgets count."""
        return socket_address(self.scope)

    async def websocket_receive(self, message: dict) -> None:
        """Every frame spends from its person's budget, whatever it says, before it is read."""
        if not await limits.spend_frame(self.frames):
            logger.warning("%s: too many frames, the connection is closed.", self.scope["path"])
            await self.close_for_good(TOO_MANY_FRAMES, TOO_MANY_FRAMES_WORDS)
            return
        await super().websocket_receive(message)

    async def close_for_good(self, code: int, words: str) -> None:
        """Tell the page why, in its language, and close with ``code``, one the page does not reconnect
        after (a page that reconnected at once would only be closed again)."""
        self.closing = True
        with translation.override(self.language):
            await self.send_text(closing_notice(gettext(words)))
        await self.close(code=code)

    async def user_banned(self, event: dict) -> None:
        """This page's person was banned: the page stops at once (a new one opens as nobody's)."""
        await self.close_for_good(FORBIDDEN, BANNED_WORDS)

    async def news_lost(self, event: dict) -> None:
        """The channel layer went out of reach: close, so the page retries later."""
        logger.warning("%s: the channel layer is out of reach.", self.scope["path"])
        await self.close(code=TRY_AGAIN_LATER)

    async def send_text(self, text: str) -> None:
        if text:
            with contextlib.suppress(SOCKET_CLOSED):
                await self.send(text_data=text)


def frame_budget(scope: dict) -> limits.Budget:
    """The budget of frames a socket spends from: its person's (by id, however many sockets they open
    or reopen), or a visitor's address's."""
    user = scope.get("user")
    who = f"user:{user.pk}" if user is not None and user.pk is not None else f"addr:{socket_address(scope)}"
    return limits.Budget(f"frames:{who}", settings.SOCKET_FRAMES_PER_SECOND, settings.SOCKET_FRAMES_BURST)


class ProcessNews:
    """This process's one place in the channel layer for its live pages of one kind, listening on a
    channel of its own and handing what it hears to those pages, in order, through their ``news``.
    The pages are kept by key (a table, a person), each key's group joined with its first page here
    and left with its last (``KeyedPages``).

    It is in ``USERS_GROUP`` too, and closes every page of a person banned. Its heartbeat, every
    ``PRESENCE_HEARTBEAT_SECONDS``, takes its place in its groups again: Redis forgets them when it
    restarts.
    """

    prefix = "live"

    def __init__(self) -> None:
        self.channel = ""
        self.loop: asyncio.AbstractEventLoop | None = None
        self.layer = None
        self.listener: asyncio.Task | None = None
        self.heartbeat: asyncio.Task | None = None
        self.pages_by_key: KeyedPages = KeyedPages(self.group_of, lambda: self.channel)

    def group_of(self, key) -> str | None:
        """The group the pages kept under ``key`` hear (None: only this process's other groups)."""
        return None

    def groups(self) -> Iterable[str]:
        """The groups this process's place belongs in."""
        return [USERS_GROUP, *self.pages_by_key.groups()]

    def pages(self) -> list[LiveConsumer]:
        """Every page this process hands news to."""
        return list(self.pages_by_key)

    def forget_pages(self) -> None:
        """Drop every page: they belong to an event loop or channel layer no longer listened to."""
        self.pages_by_key.clear()

    def held(self) -> dict[str, int]:
        """What this process keeps for its pages of this kind, counted (``config.holdings``): each
        count falls back as the pages, and the keys they were kept under, go."""
        return {"pages": len(self.pages()), "keys": len(self.pages_by_key.keys())}

    async def join(self, layer, key, page: LiveConsumer) -> None:
        """Hand ``page`` the news of its kind, and of ``key``."""
        await self._listening(layer)
        await self.pages_by_key.add(layer, key, page)

    async def leave(self, layer, key, page: LiveConsumer) -> None:
        """No more news for ``page``."""
        await self.pages_by_key.discard(layer, key, page)

    def heard(self, message: dict) -> None:
        """Hand ``message`` (news of the pages' kind) to the pages it concerns."""
        raise NotImplementedError

    def _listens(self, loop: asyncio.AbstractEventLoop, layer) -> bool:
        listening = self.listener is not None and not self.listener.done()
        return listening and self.loop is loop and self.layer is layer

    async def _listening(self, layer) -> None:
        """Start the listener for this event loop and channel layer, once."""
        loop = asyncio.get_running_loop()
        if self._listens(loop, layer):
            return
        channel = await layer.new_channel(self.prefix)
        if self._listens(loop, layer):
            return  # another page started it meanwhile
        if self.loop is not loop or self.layer is not layer:
            # Pages of another event loop or channel layer (a test's) hear nothing more.
            self.forget_pages()
            if self.listener is not None and self.loop is loop:
                self.listener.cancel()
                self.heartbeat.cancel()
        self.loop, self.layer, self.channel = loop, layer, channel
        self.listener = loop.create_task(self._listen(layer, channel))
        self.heartbeat = loop.create_task(self._beat(layer))
        await self._join_groups(layer)

    async def _join_groups(self, layer) -> None:
        for group in self.groups():
            await layer.group_add(group, self.channel)

    async def _listen(self, layer, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
            except Exception:
                # Deaf to the news: the pages reconnect once the channel layer is back.
                logger.warning("%s: the news could not be read.", self.prefix, exc_info=True)
                self._tell_all({"type": "news.lost"})
                await asyncio.sleep(1)
                continue
            if message.get("type", "").startswith("user."):
                self._tell_person(message)
            else:
                self.heard(message)

    def _tell_all(self, message: dict) -> None:
        for page in self.pages():
            page.news.put_nowait(message)

    def _tell_person(self, message: dict) -> None:
        """News of one person (``user.*``) for their pages here that have a use for it."""
        for page in self.pages():
            user_id = page.user_id
            if user_id is not None and user_id == message.get("user") and page.handler_for(message):
                page.news.put_nowait(message)

    def beat_seconds(self) -> float:
        """How often the heartbeat runs. However often, each beat has ``PRESENCE_HEARTBEAT_SECONDS`` at
        least to finish before the process counts as out of touch with Redis and closes its pages: a
        quicker beat (the site socket's, for the pool) takes as long as any under a crowd."""
        return settings.PRESENCE_HEARTBEAT_SECONDS

    async def _beat(self, layer) -> None:
        """Every beat, take this process's place in its groups again, then do the kind's own work. Only
        losing the channel layer closes the pages (they reconnect once it is back): work that is slow
        or fails (a crowd's tables starting at once, the database busy) is logged and tried again at
        the next beat, and the pages stay."""
        while True:
            await asyncio.sleep(self.beat_seconds())
            budget = max(self.beat_seconds(), settings.PRESENCE_HEARTBEAT_SECONDS)
            try:
                async with asyncio.timeout(budget):
                    await self._join_groups(layer)
            except Exception:
                # Out of touch with Redis: the pages close and reconnect once it is back.
                logger.warning("%s: the heartbeat failed.", self.prefix, exc_info=True)
                self._tell_all({"type": "news.lost"})
                continue
            try:
                async with asyncio.timeout(budget):
                    await self._beat_work(layer)
            except Exception:
                logger.warning("%s: the heartbeat's work failed or was slow.", self.prefix, exc_info=True)

    async def _beat_work(self, layer) -> None:
        """What a kind of page has its process do every beat (stamp presence, catch up missed news)."""


class LobbyNews(ProcessNews):
    """The lobby's pages in this process, by game filter. A change to the lobby is read and rendered
    here once per game filter and language among them, not once per page; changes that come while it
    renders are rendered together, once, after it."""

    prefix = "lobby"

    def __init__(self) -> None:
        super().__init__()
        self.refreshing: asyncio.Task | None = None
        self.behind = False
        """A change came that the lists being rendered (if any) may not show."""

    def groups(self) -> Iterable[str]:
        return [*super().groups(), LOBBY_GROUP]

    def forget_pages(self) -> None:
        super().forget_pages()
        self.refreshing = None

    def heard(self, message: dict) -> None:
        self.behind = True
        if self.refreshing is None or self.refreshing.done():
            self.refreshing = asyncio.ensure_future(self._refresh())

    async def _refresh(self) -> None:
        while self.behind and (viewers := self.pages()):
            self.behind = False
            wanted = {(viewer.game, viewer.language) for viewer in viewers}
            try:
                lists = await off_thread(lobby_lists)(wanted)
            except Exception:
                logger.warning("The lobby could not be read.", exc_info=True)
                return
            for viewer in self.pages():
                if text := lists.get((viewer.game, viewer.language)):
                    viewer.news.put_nowait({"type": "lobby.list", "text": text})


def lobby_lists(wanted: set[tuple[str | None, str]]) -> dict[tuple[str | None, str], str]:
    """The lobby's list of open tables for each (game filter, language) in ``wanted``: one read per
    game filter, one render per language. The list holds nothing of its viewer (no form, no token,
    the same links for everyone), so one render serves every page with the same filter and language."""
    tables = {
        game: selectors.with_seat_notes(selectors.open_tables(game=game))
        for game in {game for game, _language in wanted}
    }
    lists = {}
    for game, language in wanted:
        with translation.override(language):
            lists[game, language] = render_to_string("tables/lobby.html#table-list", {"tables": tables[game]})
    return lists


LOBBY_NEWS = LobbyNews()


class LobbyConsumer(LiveConsumer):
    """The lobby's list of open tables, kept up to date; the page only listens."""

    game: str | None = None

    async def connect(self) -> None:
        game = parse_qs(self.scope.get("query_string", b"").decode()).get("game", [""])[0]
        self.game = game if game in Game.values else None
        try:
            await LOBBY_NEWS.join(self.channel_layer, self.game, self)
        except Exception:
            logger.warning("The lobby: the channel layer is out of reach.")
            await self.close(code=TRY_AGAIN_LATER)
            return
        await self.accept()

    async def clean_up(self) -> None:
        await LOBBY_NEWS.leave(self.channel_layer, self.game, self)

    async def lobby_list(self, event: dict) -> None:
        await self.send_text(event["text"])

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """This page only listens; anything sent is answered with an error, never acted on."""
        await self.send_text('{"error": "This connection only sends updates."}')


def room_context(table, scope) -> dict:
    """The waiting room's context for a websocket viewer (the page view builds the same from its request)."""
    host = scope_header(scope, b"host")
    scheme = "https" if scope_header(scope, b"origin").startswith("https") else "http"
    return {
        "table": table,
        "my_seat": selectors.seat_of(table=table, user=scope["user"]),
        "seats": selectors.seat_choices(table=table, user=scope["user"]),
        "casual_if_seated": selectors.casual_if_seated(table=table, user=scope["user"]),
        "bot_form": BotForm(),
        "invite_url": f"{scheme}://{host}{reverse('tables:invitation', args=[table.invite_token])}",
    }
