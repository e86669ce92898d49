"""The table's websocket: one connection per browser tab, rendering its own seat's view.

Incoming frames are htmx's form messages (JSON). The seat is always the one the
logged-in user sits in, never something the frame says; anything malformed is
answered with an error for this connection only, and nothing is changed.
"""

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from functools import cached_property, partial

from channels.consumer import get_handler_name
from django.db import DatabaseError
from django.utils import translation
from django.utils.translation import gettext_noop

from observe import logs
from observe.sockets import CountedSocket
from tables import events
from tables import selectors as table_selectors
from tables.consumers import TRY_AGAIN_LATER, LiveConsumer, ProcessNews, off_thread, room_context
from tables.events import table_group
from tables.fragments import FORBIDDEN

from . import frames, presence, selectors, services, socket_parts
from .frames import MARKUP
from .models import Move
from .shared_tables import SHARED_TABLES, SharedTable

logger = logging.getLogger(__name__)


class TableNews(ProcessNews):
    """This process's viewers of each table, and one place in each table's group for all of them.

    A change to a table is one group message per process rather than one per viewer, read from the
    channel layer once and handed to each of the table's viewers here, in order, through their own
    queue (``TableConsumer.news``).

    One heartbeat for all of them, too: every ``PRESENCE_HEARTBEAT_SECONDS`` the process stamps every
    seat it has open in one round trip (so a dead server's seats fade), takes its place in each
    table's group again (Redis forgets groups when it restarts), and hands each viewer whose page is
    behind its table (news lost while Redis was away) the table's latest version.
    """

    prefix = "tables"

    def __init__(self) -> None:
        super().__init__()
        self.stamping: asyncio.Future | None = None
        """The heartbeat's stamps under way, which a leaving seat waits for."""
        self.echoes: Counter[tuple[int, str]] = Counter()
        """Messages handed over as they were sent from this process (``hear_here``), not yet back
        from the channel layer: their echo is dropped, so no viewer renders the same news twice. At
        most ``MAX_ECHOES``, and a table's go when its last page here leaves."""

    def group_of(self, key: int) -> str:
        return table_group(key)

    def forget_pages(self) -> None:
        table_ids = self.pages_by_key.keys()  # keys (iterating walks the pages)
        for table_id in table_ids:
            SHARED_TABLES.release(table_id)
            MARKUP.release(table_id)
        super().forget_pages()
        self.echoes.clear()

    async def leave(self, layer, key: int, page: LiveConsumer) -> None:
        """The table's last page here leaving takes with it what this process kept of the table: its
        shared read, the markup rendered for it, and the echoes still awaited of its news (this
        process is out of its group now)."""
        await super().leave(layer, key, page)
        if key not in self.pages_by_key:
            SHARED_TABLES.release(key)
            MARKUP.release(key)
            for echo in [echo for echo in self.echoes if echo[0] == key]:
                del self.echoes[echo]

    def held(self) -> dict[str, int]:
        return {**super().held(), "echoes": len(self.echoes)}

    def hear_here(self, group: str, message: dict) -> None:
        """A table's news sent from this process (a move made here, on a worker thread): handed to the
        table's viewers here at once, without the round trip through Redis and back."""
        loop, table_id = self.loop, message.get("table")
        if loop is None or table_id not in self.pages_by_key or group != table_group(table_id):
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (a test's)
            loop.call_soon_threadsafe(self._hand_over_sent, message)

    def _hand_over_sent(self, message: dict) -> None:
        if len(self.echoes) > MAX_ECHOES:  # echoes lost with Redis: forget them
            self.echoes.clear()
        self.echoes[echo_key(message)] += 1
        self._hand_over(message)

    def _hand_over(self, message: dict) -> None:
        for viewer in self.pages_by_key.of(message.get("table")):
            viewer.news.put_nowait(message)

    def heard(self, message: dict) -> None:
        if self.echoes and self._was_echo(message):
            return
        self._hand_over(message)

    def _was_echo(self, message: dict) -> bool:
        """Whether ``message`` came back from Redis after being handed over here (and is dropped)."""
        key = echo_key(message)
        if not self.echoes[key]:
            return False
        self.echoes[key] -= 1
        if not self.echoes[key]:
            del self.echoes[key]
        return True

    async def _beat_work(self, layer) -> None:
        seats = [
            (viewer.table_id, viewer.presence_seat, viewer.channel_name)
            for viewer in self.pages()
            if viewer.present
        ]
        self.stamping = asyncio.ensure_future(off_thread(presence.refresh_many)(seats))
        await self.stamping
        latest = await off_thread(SHARED_TABLES.check_all)(self.pages_by_key.keys())
        for table_id, version in latest.items():
            for viewer in self.pages_by_key.of(table_id):
                # A viewer still connecting (shown nothing yet) reads the table after joining anyway.
                if viewer.shown_version not in (NOT_SHOWN, version):
                    viewer.news.put_nowait({"type": "table.changed", "version": version})

    async def stamped(self) -> None:
        """Once the heartbeat's stamps under way (if any) are made: a seat leaving after it cannot
        be stamped back by them."""
        if self.stamping is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.stamping)


MAX_ECHOES = 4096
NOT_SHOWN = -1
"""``TableConsumer.shown_version`` before the page's first frame."""


def echo_key(message: dict) -> tuple[int, str]:
    """The table a message is news of, and the message as a key."""
    return message.get("table"), repr(sorted(message.items()))


TABLE_NEWS = TableNews()
SHARED_TABLES.shown = MARKUP.live = TABLE_NEWS.pages_by_key.__contains__
events.hear_here_first(TABLE_NEWS.hear_here)


MOVE_NOT_MADE = gettext_noop("The server could not make that move just now: nothing changed. Try again.")


def watching() -> services.ActionRefused:
    """Why a frame from someone who has no seat at the table is refused."""
    return services.ActionRefused(gettext_noop("You are watching this table: only its players can play."))


class TableConsumer(CountedSocket, LiveConsumer):
    """One tab's table (or its waiting room). Whatever ends the connection, its cleanup runs: out of
    the table's group, and out of the seat's presence (a spectator's: the table's watchers). The apps
    above gameplay add to it through their registered parts (``socket_parts``: the chat)."""

    group = ""
    seat: int | None = None
    """The seat whose presence this connection counts in (noted when it connected)."""
    seat_shown: int | None = None
    """The user's seat in the table this page was last sent (None: watching). A frame from a page
    that shows no seat of its own is refused from this alone, without reading the table."""
    present = False
    shown_version = NOT_SHOWN
    """The version of the table this page was last sent."""
    shown_move: tuple[int, int] | None = None
    """The match and the number of its last move as this page was last sent them."""
    parts: tuple[socket_parts.TableSocketPart, ...] = ()
    own_pace = False
    """The table is played at its players' own pace (noted when the page connected)."""

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.sent: frames.Sent = {}
        if not await off_thread(self.may_watch)():
            await self.close(code=FORBIDDEN)
            return
        self.parts = tuple(part(self) for part in socket_parts.registered())
        for part in self.parts:
            await part.connect()
        try:
            await TABLE_NEWS.join(self.channel_layer, self.table_id, self)
        except Exception:
            # Redis is out of reach: turn the socket away (nothing to clean up); the page retries.
            logger.warning("Table %s: the channel layer is out of reach.", self.table_id)
            await self.close(code=TRY_AGAIN_LATER)
            return
        self.group = table_group(self.table_id)
        # This connection's own task logs as the table's from here on (not before: the process's
        # listener, which the first join starts, would inherit it).
        logs.bind(table_id=self.table_id)
        await self.accept()
        await off_thread(presence.arrive)(self.table_id, self.presence_seat, self.channel_name)
        self.present = True
        # Read after joining the group, so no change falls between the two: a reconnect lands on the
        # exact current state.
        await self.send_text(await off_thread(self.first_text)())

    def first_text(self) -> str:
        """The page's first update on this connection: all of the table, as it stands, and what the
        parts add (a page reconnecting catches up on what it missed while away)."""
        return self.screen_text(None) + "".join(part.first_text() for part in self.parts)

    def handler_for(self, message: dict) -> Callable[[dict], Awaitable[None]] | None:
        """The page's own handler for ``message``, or else the first part's whose method its type names."""
        name = get_handler_name(message)
        for owner in (self, *self.parts):
            if (handler := getattr(owner, name, None)) is not None:
                return handler
        return None

    def may_watch(self) -> bool:
        """Whether this user may watch the table; notes their seat."""
        shared = SHARED_TABLES.get(self.table_id, None)
        if shared is None:
            return False
        user = self.scope["user"]
        if not table_selectors.may_watch(table=shared.table, user=user):
            return False
        self.seat = self.seat_shown = self._seat_at(shared)
        self.own_pace = shared.table.is_own_pace
        return True

    @property
    def presence_seat(self) -> int | str:
        """Where this connection counts: its seat's presence, or the table's watchers."""
        return self.seat if self.seat is not None else presence.WATCHERS

    def _seat_at(self, shared: SharedTable) -> int | None:
        """The seat this connection's user holds at the table as ``shared`` has it (None: watching)."""
        return shared.positions.get(self.user_id)

    @cached_property
    def user_id(self) -> int | None:
        """The connection's user's id (None: not signed in), read from the scope's lazy user once."""
        user = self.scope["user"]
        return user.pk if user.is_authenticated else None

    async def clean_up(self) -> None:
        """Undo what ``connect`` did, once, each step whatever became of the others."""
        if self.group:
            self.group = ""
            try:
                await TABLE_NEWS.leave(self.channel_layer, self.table_id, self)
            except Exception:
                logger.warning("Table %s: could not leave the group.", self.table_id, exc_info=True)
        if self.present:
            self.present = False
            await TABLE_NEWS.stamped()  # so that the heartbeat cannot mark the seat present after it left
            try:
                await off_thread(self.leave_seat)()
            except Exception:
                # The entry fades by itself within the presence TTL.
                logger.warning("Table %s: could not note a seat leaving.", self.table_id, exc_info=True)

    def leave_seat(self) -> None:
        left = presence.leave(self.table_id, self.presence_seat, self.channel_name)
        if self.seat is not None and left == 0:
            services.seat_connection_lost(table_id=self.table_id, seat=self.seat)
            if self.own_pace:  # the person saw the match live up to now: "since you were here" starts here
                services.pace_seen(table_id=self.table_id, user_id=self.user_id)

    async def table_changed(self, event: dict) -> None:
        # Version 0 marks a change to the table itself (seats, a rematch): read it anew.
        version, match_only = event.get("version") or None, event.get("match_only", False)
        text = self.held_screen_text(version)
        if text is None:
            text = await off_thread(self.screen_text)(version, match_only=match_only)
        await self.send_text(text)

    def held_screen_text(self, version: int | None) -> str | None:
        """What changed for this viewer, rendered right here on the event loop when a move made in
        this process brought the table to ``version`` (``SharedTable.after_move``): templates only,
        nothing to read, so no thread hop. None when the table must be read first, or when the screen
        may read more (a round's or the match's end, a seat changing hands)."""
        shared = SHARED_TABLES.held_after_move(self.table_id, version) if version is not None else None
        if shared is None:
            return None
        with translation.override(self.language):
            return self._changed_fragments(shared)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        for part in self.parts:
            if await part.receive(text_data):
                return
        frame = frames.parse_frame(text_data)
        unreadable = isinstance(frame, frames.ActionRefused) and frame.template == frames.UNREADABLE
        if unreadable or self.seat_shown is None:
            # Refused here on the event loop, from the frame and the seat this page was last shown
            # alone: no thread hop, no read of the table, nothing of the process's shared read undone.
            await self.send_text(self.refusal_text(frame if unreadable else watching()))
            return
        await self.send_text(await off_thread(self.reply_to)(frame))

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
        self.seat_shown = self._seat_at(shared)
        if snapshot is None or snapshot.version == 0:
            # The waiting room; at the start, a waiting room still open in a tab learns from it to reload.
            room = self.render("tables/detail.html#room", room_context(table, self.scope))
            if snapshot is None:
                return room
        else:
            room = ""
        told = shared.told.setdefault(self.language, {})
        screen = selectors.table_screen(snapshot, self.scope["user"], common=told)
        context = {"table": table, "screen": screen, "notice": ""}
        with MARKUP.owned_by(self.table_id):  # the table's pieces go with its last page here
            fragments = frames.play_fragments(
                self.render,
                context,
                sent=self.sent,
                events=self._events_since(shared, screen.names),
                shared=shared.fragments,
                language=self.language,
            )
        return room + "".join(fragments)

    def _events_since(self, shared: SharedTable, names: list[str]) -> list[dict]:
        """The public events of the moves made since this page was last sent the table, each with its
        line of the log. None on a page's first frame, in another match, or when more moves went by
        than the log holds: the page then shows the table as it stands, without motion."""
        snapshot = shared.snapshot
        shown, self.shown_move = self.shown_move, (snapshot.match.pk, snapshot.last_seq)
        if shown is None or shown[0] != snapshot.match.pk:
            return []
        new = snapshot.last_seq - shown[1]
        if not 0 < new <= len(snapshot.recent_moves):
            return []
        key = (self.language, new)
        if key not in shared.events:
            shared.events[key] = frames.told_events(snapshot.recent_moves[-new:], names)
        return shared.events[key]

    def refusal_text(self, refusal: services.ActionRefused) -> str:
        """The notice saying why a frame was refused, in this connection's language."""
        with translation.override(self.language):
            return frames.notice_fragment(self.render, refusal.explain(), sent=self.sent)

    def reply_to(self, frame: frames.Frame | services.ActionRefused) -> str:
        """Make the move a frame asks for; what to answer this connection with ("" when the move's
        own broadcast is the answer). A statement the database failed (a deadlock, a restart) undid the
        whole move: the page is told so, and its socket stays open for the next try."""
        try:
            refusal = self._refusal(frame)
        except DatabaseError:
            logger.warning("Table %s: the database failed a move.", self.table_id, exc_info=True)
            refusal = services.ActionRefused(MOVE_NOT_MADE)
        if refusal is None:
            return ""
        if refusal.stale:
            return self.screen_text(refusal.version, resend=True)
        return self.refusal_text(refusal)

    def _refusal(self, frame: frames.Frame | services.ActionRefused) -> services.ActionRefused | None:
        """The frame's move made, or why not (read in this connection's language by ``explain``)."""
        user = self.scope["user"]
        shared = SHARED_TABLES.latest(self.table_id)
        seat = self._seat_at(shared) if shared is not None else None
        if seat is None:  # the seat this page was shown is no longer theirs
            return watching()
        if shared.snapshot is None:
            return services.ActionRefused(gettext_noop("The match has not started yet."))
        if isinstance(frame, frames.ActionRefused):  # a move no game has: said after who may move, and when
            return frame
        match_id = shared.snapshot.match.pk
        if frame.action is None:
            services.seat_reclaim(match_id=match_id, seat=seat)
            return None
        try:
            services.act(
                match_id=match_id,
                seat=seat,
                action=frame.action,
                actor=Move.Actor.PLAYER,
                expected_version=frame.version,
                reclaim=True,
                user_id=user.pk,
                committed=partial(SHARED_TABLES.advance, self.table_id),
            )
        except services.ActionRefused as refusal:
            return refusal
        return None
