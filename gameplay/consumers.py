"""The table's websocket: one connection per browser tab, rendering its own seat's view.

Incoming frames are htmx's form messages (JSON). The seat is always the one the
logged-in user sits in, never something the frame says; anything malformed is
answered with an error for this connection only, and nothing is changed.
"""

import asyncio
import contextlib
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import partial

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_noop
from redis.exceptions import ConnectionError as RedisConnectionError

from tables import selectors as table_selectors
from tables.consumers import room_context
from tables.events import table_group
from tables.fragments import FORBIDDEN, FragmentRendering
from tables.models import Table

from . import presence, selectors, services
from .models import Move

logger = logging.getLogger(__name__)

MAX_FRAME = 4096
TRY_AGAIN_LATER = 4013
"""Closed for a retry: the channel layer is out of reach (1013's meaning, in the range a server may send)."""
"""A close code the page's websocket reconnects after."""
ACTION_TYPES = {"play", "draw", "take", "sit_out", "end"}
PLAY_FRAGMENTS = ("topbar", "opponents", "center", "hand", "log", "outcome", "notice")


def _shared_key(name: str, screen: selectors.Screen) -> tuple | None:
    """What a fragment depends on beyond the table's version and the language, when every viewer
    with the same key sees the same markup; None for fragments made for one viewer only."""
    if name in ("topbar", "log", "notice"):
        return ()
    if name == "center":
        return (screen.aimed_text, screen.holder_text)
    if name == "outcome" and not screen.on_show:
        return ()  # nothing on show while a round is played
    return None


@dataclass
class SharedTable:
    """This process's latest read of one table, and the fragments its viewers have in common."""

    table: Table
    snapshot: selectors.TableSnapshot | None
    fragments: dict[tuple, str] = field(default_factory=dict)
    checked_at: float = field(default_factory=time.monotonic)
    """When this read was last known to be the database's latest."""

    @property
    def version(self) -> int:
        return self.snapshot.version if self.snapshot else 0


class SharedTables:
    """Every seat of a table hears of the same change; the first one to handle it reads the table
    and renders the common fragments, the others reuse them. Safe across the worker threads: one
    read per table at a time, so a table's seats wait for one read instead of making four."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self.entries: OrderedDict[int, SharedTable] = OrderedDict()
        self.locks: dict[int, threading.Lock] = {}
        self.lock = threading.Lock()

    def latest(self, table_id: int) -> SharedTable | None:
        """The newest read of the table this process holds (read now if it holds none)."""
        with self.lock:
            entry = self.entries.get(table_id)
        return entry if entry is not None else self.get(table_id, None)

    def checked(self, table_id: int, max_age: float) -> SharedTable | None:
        """The held read, checked against the database at most once per ``max_age`` seconds per table,
        and read anew when behind: news lost while the channel layer was away (a Redis restart) is
        caught up without a read per viewer."""
        with self.lock:
            held = self.entries.get(table_id)
        if held is None or time.monotonic() - held.checked_at < max_age:
            return held
        held.checked_at = time.monotonic()
        held_match = (held.snapshot.match.pk, held.version) if held.snapshot else None
        return held if selectors.match_version(table_id) == held_match else self.get(table_id, None)

    def get(self, table_id: int, version: int | None, *, match_only: bool = False) -> SharedTable | None:
        """The table as of ``version``, read anew when this process holds another version (older
        news, or another match: a new match always announces itself as a change to the table) or
        when ``version`` is None (a change to the table itself, a new connection). When only the
        match moved on from the version held (``match_only``), only the match is read again."""
        with self.lock:
            table_lock = self.locks.setdefault(table_id, threading.Lock())
        with table_lock:
            held = self.entries.get(table_id)
            if held is not None and version is not None and held.version == version:
                entry = held
            elif held is not None and held.snapshot and match_only and held.version == version - 1:
                entry = SharedTable(table=held.table, snapshot=selectors.snapshot_advanced(held.snapshot))
            else:
                table = table_selectors.table_detail(table_id=table_id)
                entry = SharedTable(table=table, snapshot=selectors.table_snapshot(table)) if table else None
        return self._keep(table_id, entry)

    def advance(self, table_id: int, moved: services.ActResult) -> None:
        """Take a move this process just made as the table's latest read when it follows the one held,
        so the move's broadcast finds the table read already (no read at all for a plain move)."""
        if moved.match is None:
            return
        with self.lock:
            table_lock = self.locks.setdefault(table_id, threading.Lock())
        with table_lock:
            held = self.entries.get(table_id)
            if held is None or held.snapshot is None or held.snapshot.match.pk != moved.match_id:
                return
            if held.version != moved.version - 1:
                return
            after = selectors.snapshot_after(held.snapshot, moved.match, moved.state, moved.move)
            entry = SharedTable(table=held.table, snapshot=after)
        self._keep(table_id, entry)

    def _keep(self, table_id: int, entry: SharedTable | None) -> SharedTable | None:
        with self.lock:
            if entry is None:
                self.entries.pop(table_id, None)
                return None
            self.entries[table_id] = entry
            self.entries.move_to_end(table_id)
            while len(self.entries) > self.size:
                evicted, _entry = self.entries.popitem(last=False)
                self.locks.pop(evicted, None)
        return entry


SHARED_TABLES = SharedTables()


UNREADABLE = gettext_noop("That message could not be read.")
NOT_A_MOVE = gettext_noop("That is not a move of this game.")
VERSION_TEXT = re.compile(r"[0-9]{1,12}")
CARD_TEXT = re.compile(r"[0-9A-Z]{2,3}")
SUITS = {"S", "H", "D", "C"}


@dataclass(frozen=True)
class Frame:
    """A frame read and checked whole: the version it was made against and what it asks for
    (``action`` is None for "I'm back")."""

    version: int
    action: dict | None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a frame may hold")


def parse_frame(text_data: str | None) -> Frame | services.ActionRefused:
    """The frame a client sent, checked in every part before anything uses it, or why it is refused.

    Frames are htmx's form messages: every value a string (a version may also come as a JSON
    integer). Anything else (NaN, infinities, floats, booleans, lists or objects where a word
    belongs, nesting too deep to read) is refused, never passed on.
    """
    if not isinstance(text_data, str) or len(text_data) > MAX_FRAME:
        return services.ActionRefused(UNREADABLE)
    try:
        frame = json.loads(text_data, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return services.ActionRefused(UNREADABLE)
    if not isinstance(frame, dict):
        return services.ActionRefused(UNREADABLE)
    version = frame.get("version")
    if type(version) is str and VERSION_TEXT.fullmatch(version):
        version = int(version)
    elif type(version) is not int or not 0 <= version < 10**12:
        return services.ActionRefused(UNREADABLE)
    kind, card, suit = frame.get("type"), frame.get("card"), frame.get("suit")
    if not all(value is None or type(value) is str for value in (kind, card, suit)):
        return services.ActionRefused(NOT_A_MOVE)
    kind = kind or ("play" if suit else None)
    if kind == "back":
        return Frame(version=version, action=None)
    if kind not in ACTION_TYPES:
        return services.ActionRefused(NOT_A_MOVE)
    if kind != "play":
        return Frame(version=version, action={"type": kind})
    if card is None or not CARD_TEXT.fullmatch(card):
        return services.ActionRefused(NOT_A_MOVE)
    action = {"type": "play", "card": card}
    if suit:  # only a seven may name one: the engine refuses any other card that does
        if suit not in SUITS:
            return services.ActionRefused(NOT_A_MOVE)
        action["suit"] = suit
    return Frame(version=version, action=action)


off_thread = partial(database_sync_to_async, thread_sensitive=False)
"""Reads, renders and moves run on a pool of threads (each with its own database connection), so
one table's database round trips never hold up the others' updates."""


class TableConsumer(FragmentRendering, AsyncWebsocketConsumer):
    """One tab's table. Whatever ends the connection (the client leaving, a crash, the server
    shutting down), its cleanup runs: out of the table's group, and out of the seat's presence."""

    group = ""
    seat: int | None = None
    present = False
    shown_version = -1
    """The version of the table this page was last sent."""
    heartbeat: asyncio.Task | None = None

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except (RedisConnectionError, OSError):
            # The channel layer went out of reach: close, so the page retries later, with a line in
            # the log rather than a traceback for every try.
            logger.warning(
                "Table %s: the channel layer is out of reach.", scope["url_route"]["kwargs"]["table_id"]
            )
            with contextlib.suppress(Exception):
                await self.close(code=TRY_AGAIN_LATER)
        finally:
            await self.clean_up()

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.sent: dict[str, str] = {}
        if not await off_thread(self.may_watch)():
            await self.close(code=FORBIDDEN)
            return
        try:
            await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        except Exception:
            # Redis is out of reach: turn the socket away (nothing to clean up); the page retries.
            logger.warning("Table %s: the channel layer is out of reach.", self.table_id)
            await self.close(code=TRY_AGAIN_LATER)
            return
        self.group = table_group(self.table_id)
        await self.accept()
        if self.seat is not None:
            await off_thread(presence.arrive)(self.table_id, self.seat, self.channel_name)
            self.present = True
        self.heartbeat = asyncio.create_task(self.beat())
        # Read after joining the group, so no change falls between the two: a reconnect lands on the
        # exact current state.
        await self.send_text(await off_thread(self.screen_text)(None))

    def may_watch(self) -> bool:
        """Whether this user may watch the table; notes their seat."""
        shared = SHARED_TABLES.get(self.table_id, None)
        if shared is None:
            return False
        user = self.scope["user"]
        if not table_selectors.may_watch(table=shared.table, user=user):
            return False
        seat = table_selectors.seat_of(table=shared.table, user=user)
        if seat is not None:
            self.seat = seat.position
        return True

    async def beat(self) -> None:
        """Every few seconds: the seat is still here (so a dead server's seats fade), and this channel
        is still in the table's group (Redis forgets groups when it restarts)."""
        while True:
            await asyncio.sleep(settings.PRESENCE_HEARTBEAT_SECONDS)
            try:
                async with asyncio.timeout(settings.PRESENCE_HEARTBEAT_SECONDS):
                    await self.channel_layer.group_add(self.group, self.channel_name)
                    if self.present:
                        await off_thread(presence.refresh)(self.table_id, self.seat, self.channel_name)
                await self.send_text(await off_thread(self.catch_up)())
            except Exception:
                # Deaf to the table's news: close, and the page reconnects when Redis is back.
                logger.warning("Table %s: the heartbeat failed.", self.table_id, exc_info=True)
                await self.close(code=TRY_AGAIN_LATER)
                return

    async def clean_up(self) -> None:
        """Undo what ``connect`` did, once, each step whatever became of the others."""
        heartbeat, self.heartbeat = self.heartbeat, None
        if heartbeat is not None:
            heartbeat.cancel()
            # Waits for a refresh already under way, so it cannot mark the seat present after it left.
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await heartbeat
        if self.group:
            group, self.group = self.group, ""
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:
                logger.warning("Table %s: could not leave the group.", self.table_id, exc_info=True)
        if self.present:
            self.present = False
            try:
                await off_thread(self.leave_seat)()
            except Exception:
                # The entry fades by itself within the presence TTL.
                logger.warning("Table %s: could not note a seat leaving.", self.table_id, exc_info=True)

    def catch_up(self) -> str:
        """What this page missed, if the table moved on while its news could not reach it."""
        shared = SHARED_TABLES.checked(self.table_id, settings.PRESENCE_HEARTBEAT_SECONDS)
        if shared is None or shared.version == self.shown_version:
            return ""
        return self.screen_text(shared.version)

    def leave_seat(self) -> None:
        if presence.leave(self.table_id, self.seat, self.channel_name) == 0:
            services.seat_connection_lost(table_id=self.table_id, seat=self.seat)

    async def table_changed(self, event: dict) -> None:
        # Version 0 marks a change to the table itself (seats, a rematch): read it anew.
        version, match_only = event.get("version") or None, event.get("match_only", False)
        await self.send_text(await off_thread(self.screen_text)(version, match_only=match_only))

    async def receive(self, text_data=None, bytes_data=None) -> None:
        await self.send_text(await off_thread(self.reply_to)(text_data))

    async def send_text(self, text: str) -> None:
        if text:
            await self.send(text_data=text)

    def screen_text(self, version: int | None, *, match_only: bool = False, resend: bool = False) -> str:
        """What changed for this viewer since its last message (everything with ``resend``)."""
        shared = SHARED_TABLES.get(self.table_id, version, match_only=match_only)
        if shared is None:
            return ""
        # Labels and log lines are made while building the screen, so the language is set for all of it.
        with translation.override(self.language):
            if resend:
                self.sent.clear()
            return self._changed_fragments(shared)

    def _changed_fragments(self, shared: SharedTable) -> str:
        table, snapshot = shared.table, shared.snapshot
        self.shown_version = shared.version
        if snapshot is None or snapshot.version == 0:
            # The waiting room; at the start, a waiting room still open in a tab learns from it to reload.
            room = self.render("tables/detail.html#room", room_context(table, self.scope))
            if snapshot is None:
                return room
        else:
            room = ""
        screen = selectors.table_screen(snapshot, self.scope["user"])
        context = {"table": table, "screen": screen, "notice": ""}
        parts = [room]
        for name in PLAY_FRAGMENTS:
            key = _shared_key(name, screen)
            if key is None:
                html = self.render(f"gameplay/table.html#{name}", context)
            else:
                key = (name, self.language, *key)
                if key not in shared.fragments:
                    shared.fragments[key] = self.render(f"gameplay/table.html#{name}", context)
                html = shared.fragments[key]
            if self.sent.get(name) != html:
                self.sent[name] = html
                parts.append(html)
        return "".join(parts)

    def notice_text(self, notice: str) -> str:
        html = self.render("gameplay/table.html#notice", {"notice": notice})
        self.sent["notice"] = html
        return html

    def reply_to(self, text_data: str | None) -> str:
        """Make the move a frame asks for; what to answer this connection with ("" when the move's
        own broadcast is the answer)."""
        refusal = self._refusal(text_data)
        if refusal is None:
            return ""
        if refusal.stale:
            return self.screen_text(None, resend=True)
        with translation.override(self.language):
            return self.notice_text(refusal.explain())

    def _refusal(self, text_data: str | None) -> services.ActionRefused | None:
        """The frame's move made, or why not (read in this connection's language by ``explain``)."""
        frame = parse_frame(text_data)
        if isinstance(frame, services.ActionRefused) and frame.template == UNREADABLE:
            return frame
        user = self.scope["user"]
        shared = SHARED_TABLES.latest(self.table_id)
        seat = table_selectors.seat_of(table=shared.table, user=user) if shared is not None else None
        if shared is not None and seat is None:  # this process may not have heard of the seat yet
            shared = SHARED_TABLES.get(self.table_id, None)
            seat = table_selectors.seat_of(table=shared.table, user=user) if shared is not None else None
        if seat is None:
            return services.ActionRefused(
                gettext_noop("You are watching this table: only its players can play.")
            )
        if shared.snapshot is None:
            return services.ActionRefused(gettext_noop("The match has not started yet."))
        if isinstance(frame, services.ActionRefused):  # a move no game has: said after who may move, and when
            return frame
        match_id = shared.snapshot.match.pk
        if frame.action is None:
            services.seat_reclaim(match_id=match_id, seat=seat.position)
            return None
        try:
            moved = services.act(
                match_id=match_id,
                seat=seat.position,
                action=frame.action,
                actor=Move.Actor.PLAYER,
                expected_version=frame.version,
                reclaim=True,
                user_id=user.pk,
            )
        except services.ActionRefused as refusal:
            return refusal
        SHARED_TABLES.advance(self.table_id, moved)
        return None
