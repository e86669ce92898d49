"""The tournament page's socket, and the tournaments' part of a table page's socket.

The tournament page only listens. Each process has one place in the channel layer for all its
tournament pages (``TournamentNews``), one group per tournament with a page here: a change to the
standing is read and rendered there once per tournament and language, at most every
``TOURNAMENT_PUSH_SECONDS``, and the same text handed to every page of it in that language. Its
heartbeat tells the tournament that the pages of its players are still open (or they are paused), and
sends a page whose person was seated meanwhile to the table, as the news of the seating does.

At a tournament's table (``TournamentTable``, a part of the table's socket registered in
``TournamentsConfig.ready``), the page says whose match it is and, once the match has scored, takes
its players back to the tournament after a few seconds unless they stay.
"""

import asyncio
import json
import logging
from dataclasses import dataclass

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html
from django.utils.translation import gettext

from gameplay.consumers import TableConsumer
from gameplay.socket_parts import TableSocketPart
from observe.sockets import CountedSocket
from tables.consumers import TRY_AGAIN_LATER, LiveConsumer, ProcessNews, off_thread
from tables.fragments import FORBIDDEN

from . import selectors, services
from .events import tournament_group
from .models import Pairing

logger = logging.getLogger(__name__)

LIVE_TEMPLATE = "tournaments/_live.html"
GO_BACK_SECONDS = 5
"""How long a tournament table's players see its scored match before their page goes back."""


class TournamentNews(ProcessNews):
    """This process's tournament pages, by tournament."""

    prefix = "tournaments"

    def __init__(self) -> None:
        super().__init__()
        self.pushing: dict[int, asyncio.Task] = {}
        """Each tournament's push: its render under way, then the window after it."""
        self.behind: set[int] = set()
        """Tournaments changed since their last render began."""
        self.latest: dict[int, dict[str, str]] = {}
        """Each tournament's last pushed frame, by language: what a page arriving meanwhile is shown."""

    def group_of(self, key: int) -> str:
        return tournament_group(key)

    def beat_seconds(self) -> float:
        return min(settings.PRESENCE_HEARTBEAT_SECONDS, settings.TOURNAMENT_SEEN_EVERY_SECONDS)

    def forget_pages(self) -> None:
        super().forget_pages()
        self.pushing, self.behind, self.latest = {}, set(), {}

    async def leave(self, layer, key: int, page: LiveConsumer) -> None:
        await super().leave(layer, key, page)
        if key not in self.pages_by_key:  # its last page here: what was kept of it is stale from now
            self.latest.pop(key, None)
            self.behind.discard(key)

    def held(self) -> dict[str, int]:
        kept = {"latest": len(self.latest), "pushing": len(self.pushing), "behind": len(self.behind)}
        return {**super().held(), **kept}

    def heard(self, message: dict) -> None:
        tournament_id = message.get("tournament")
        if tournament_id not in self.pages_by_key:
            return
        if message.get("type") == "tournament.changed":
            self.changed(tournament_id)
            return
        for page in self.pages_by_key.of(tournament_id):
            if page.handler_for(message) is not None:  # news for other listeners of the group is not theirs
                page.news.put_nowait(message)

    def changed(self, tournament_id: int) -> None:
        """Render the tournament for its pages here: at once if no push was made within the window,
        else once at the window's end, however many changes came in it."""
        self.behind.add(tournament_id)
        task = self.pushing.get(tournament_id)
        if task is None or task.done():
            self.pushing[tournament_id] = asyncio.ensure_future(self._push(tournament_id))

    def show_latest(self, page: "TournamentConsumer") -> None:
        """A page just opened: the tournament as last pushed in its language, or a render asked for."""
        frame = self.latest.get(page.tournament_id, {}).get(page.language)
        if frame is None:
            self.changed(page.tournament_id)
        else:
            page.news.put_nowait({"type": "tournament.live", "frame": frame})

    async def _push(self, tournament_id: int) -> None:
        loop = asyncio.get_running_loop()
        try:
            while tournament_id in self.behind and (pages := self.pages_by_key.of(tournament_id)):
                self.behind.discard(tournament_id)
                started = loop.time()
                await self._render(tournament_id, {page.language for page in pages})
                await asyncio.sleep(max(0.0, settings.TOURNAMENT_PUSH_SECONDS - (loop.time() - started)))
        finally:
            if self.pushing.get(tournament_id) is asyncio.current_task():
                del self.pushing[tournament_id]

    async def _render(self, tournament_id: int, languages: set[str]) -> None:
        try:
            frames = await off_thread(live_frames)(tournament_id, languages)
        except Exception:
            logger.warning("Tournament %s could not be rendered.", tournament_id, exc_info=True)
            return
        if tournament_id in self.pages_by_key:
            self.latest[tournament_id] = frames
        for page in self.pages_by_key.of(tournament_id):
            if (frame := frames.get(page.language)) is not None:
                page.news.put_nowait({"type": "tournament.live", "frame": frame})

    async def _beat_work(self, layer) -> None:
        tournament_ids = self.pages_by_key.keys()  # keys (iterating walks the pages)
        for tournament_id in tournament_ids:
            await self.seen(tournament_id, self.pages_by_key.of(tournament_id))

    async def seen(self, tournament_id: int, pages: list["TournamentConsumer"]) -> None:
        """The players whose ``pages`` are open are still there; a page whose person sits at one of the
        tournament's tables (its news missed) opens it."""
        user_ids = list({page.user_id for page in pages if page.user_id is not None})
        if not user_ids:
            return
        tables = await off_thread(services.tournament_seen)(tournament_id=tournament_id, user_ids=user_ids)
        for page in pages:
            if page.user_id in tables:
                page.news.put_nowait({"type": "tournament.go", "table": tables[page.user_id]})


def live_frames(tournament_id: int, languages: set[str]) -> dict[str, str]:
    """The tournament's live part as a page's frame, for each of ``languages``: one read, one render
    per language (it holds nothing of its viewer)."""
    context = selectors.live_context(tournament_id=tournament_id)
    frames = {}
    for language in languages:
        with translation.override(language):
            frames[language] = json.dumps({"kind": "live", "html": render_live(context)})
    return frames


def render_live(context: dict) -> str:
    return render_to_string(LIVE_TEMPLATE, context)


def may_watch(*, tournament_id: int, user) -> bool:
    """Whether ``user`` may follow the tournament: as its page, but with no link's token (a private
    one's creator and players only)."""
    return selectors.tournament_shown(tournament_id=tournament_id, viewer=user) is not None


TOURNAMENT_NEWS = TournamentNews()


class TournamentConsumer(CountedSocket, LiveConsumer):
    """One tab's tournament page: its standing kept current, and its person sent to their table. The
    page only listens: a frame sent is answered with an error."""

    tournament_id = 0
    joined = False
    shown = ""
    """The live frame this page was last sent."""

    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        if not await off_thread(may_watch)(tournament_id=self.tournament_id, user=self.scope["user"]):
            await self.close(code=FORBIDDEN)
            return
        try:
            await TOURNAMENT_NEWS.join(self.channel_layer, self.tournament_id, self)
        except Exception:
            logger.warning("Tournament %s: the channel layer is out of reach.", self.tournament_id)
            await self.close(code=TRY_AGAIN_LATER)
            return
        self.joined = True
        await self.accept()
        TOURNAMENT_NEWS.show_latest(self)
        await TOURNAMENT_NEWS.seen(self.tournament_id, [self])

    async def clean_up(self) -> None:
        if self.joined:
            self.joined = False
            try:
                await TOURNAMENT_NEWS.leave(self.channel_layer, self.tournament_id, self)
            except Exception:
                logger.warning("Tournament %s: could not leave the group.", self.tournament_id, exc_info=True)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        await self.send_text('{"error": "This connection only sends updates."}')

    async def tournament_live(self, event: dict) -> None:
        if event["frame"] != self.shown:
            self.shown = event["frame"]
            await self.send_text(self.shown)

    async def tournament_seated(self, event: dict) -> None:
        table_id = event["seats"].get(str(self.user_id))
        if table_id is not None:
            await self.tournament_go({"table": table_id})

    async def tournament_go(self, event: dict) -> None:
        url = reverse("gameplay:table", args=[event["table"]])
        await self.send_text(json.dumps({"kind": "go", "url": url}))


@dataclass(frozen=True)
class TournamentMatch:
    """What a tournament table's page says of its tournament."""

    name: str
    url: str
    players: frozenset[int]
    scored: bool


def tournament_match(*, table_id: int) -> TournamentMatch | None:
    """The tournament whose table this is (None: an ordinary table)."""
    pairing = Pairing.objects.filter(table_id=table_id).select_related("tournament").first()
    if pairing is None:
        return None
    return TournamentMatch(
        name=pairing.tournament.name,
        url=services.tournament_url(pairing.tournament),
        players=frozenset(pairing.seats),
        scored=pairing.scored_at is not None,
    )


class TournamentTable(TableSocketPart):
    """A tournament table's page: a banner naming the tournament (its page a tap away) and, once the
    match has scored, its players taken back to it after ``GO_BACK_SECONDS`` unless they stay."""

    page: TableConsumer
    match: TournamentMatch | None = None

    async def connect(self) -> None:
        self.match = await off_thread(tournament_match)(table_id=self.page.table_id)

    def first_text(self) -> str:
        if self.match is None:
            return ""
        return self.banner(going_back=self.match.scored and self.plays)

    @property
    def plays(self) -> bool:
        return self.match is not None and self.page.user_id in self.match.players

    async def tournament_scored(self, event: dict) -> None:
        if self.plays:
            await self.page.send_text(self.banner(going_back=True))

    def banner(self, *, going_back: bool) -> str:
        """The table's extra slot: the tournament's name and link, and the way back when ``going_back``."""
        match = self.match
        with translation.override(self.page.language):
            link = format_html('<a href="{}">{}</a>', match.url, match.name)
            back = ""
            if going_back:
                seconds = format_html("<span data-go-seconds>{}</span>", GO_BACK_SECONDS)
                back = format_html(
                    '<p class="go-back" role="status" data-go-to="{}" data-go-after="{}" '
                    'data-testid="go-back"><span>{}</span> '
                    '<button type="button" class="button button-small" data-go-stay>{}</button></p>',
                    match.url,
                    GO_BACK_SECONDS,
                    format_html(gettext("Back to the tournament in {seconds} s"), seconds=seconds),
                    gettext("Stay"),
                )
            return format_html(
                '<div id="table-extra" class="table-extra" hx-swap-oob="true" data-testid="table-extra">'
                '<p class="tournament-banner">{}</p>{}</div>',
                format_html(gettext("Tournament match: {name}"), name=link),
                back,
            )
