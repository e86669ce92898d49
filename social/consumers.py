"""The site-wide socket: one per tab, on every page but the practice table's. It carries a person's
notices (an invitation, a friend request) to whatever page they have open, opens the table the pool
made for a page that looks, and keeps the counts of who is online current where a page shows them.

As for the lobby and the tables, each process has one place in the channel layer for all its pages
(``PersonNews``): one group per person with a page here, joined with their first page and left with
their last. Its heartbeat stamps every page's presence (who is online), tells the pool the pages that
look are still open, and hands the pages the counts they show.
"""

import json
import logging
from urllib.parse import parse_qs

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from gameplay import presence
from gameplay import selectors as gameplay_selectors
from observe.sockets import CountedSocket
from tables.consumers import TRY_AGAIN_LATER, LiveConsumer, ProcessNews, off_thread
from tables.fragments import closing_notice

from . import selectors, services
from .events import person_group

logger = logging.getLogger(__name__)


class PersonNews(ProcessNews):
    """This process's site-wide sockets, by person (None: visitors not logged in)."""

    prefix = "people"

    def beat_seconds(self) -> float:
        return min(settings.PRESENCE_HEARTBEAT_SECONDS, settings.POOL_SEEN_EVERY_SECONDS)

    def group_of(self, key: int | None) -> str | None:
        """A person's group; visitors not logged in have none."""
        return person_group(key) if key is not None else None

    def heard(self, message: dict) -> None:
        for page in self.pages_by_key.of(message.get("user")):
            page.news.put_nowait(message)

    async def _beat_work(self, layer) -> None:
        pages = self.pages()
        await off_thread(presence.site_refresh)([(page.user_id, page.channel_name) for page in pages])
        looking = [page for page in pages if page.looks and page.user_id is not None]
        if looking:
            tables = await off_thread(services.pool_seen)(user_ids=list({page.user_id for page in looking}))
            for page in looking:
                if page.user_id in tables:
                    page.news.put_nowait({"type": "pool.paired", "table": tables[page.user_id]})
        if any(page.shows_counts or page.looks for page in pages):
            news = await off_thread(counts_news)()
            for page in pages:
                if page.shows_counts or page.looks:
                    page.news.put_nowait(news)


def counts_news() -> dict:
    counts = selectors.site_counts()
    return {
        "type": "site.counts",
        "online": counts.online,
        "at_tables": counts.at_tables,
        "pools": selectors.pool_counts(),
    }


PERSON_NEWS = PersonNews()


class SiteConsumer(CountedSocket, LiveConsumer):
    """One tab's site-wide socket. The page only listens: a frame sent is answered with an error."""

    looks = False
    """The page is the pool's waiting page: while it is open, its person stays in the pool."""
    shows_counts = False
    """The page shows how many are online and at tables."""
    pool = ""
    joined = False
    stamped = False

    async def connect(self) -> None:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.shows_counts = query.get("counts", [""])[0] == "1"
        self.looks = query.get("pool", [""])[0] == "1" and self.user_id is not None
        try:
            await PERSON_NEWS.join(self.channel_layer, self.user_id, self)
        except Exception:
            logger.warning("The site socket: the channel layer is out of reach.")
            await self.close(code=TRY_AGAIN_LATER)
            return
        self.joined = True
        await self.accept()
        await off_thread(presence.site_arrive)(self.user_id, self.channel_name)
        self.stamped = True
        if self.looks:
            tables = await off_thread(services.pool_seen)(user_ids=[self.user_id])
            if self.user_id in tables:
                await self.pool_paired({"table": tables[self.user_id]})
                return
        if self.shows_counts or self.looks:
            await self.site_counts(await off_thread(counts_news)())

    async def clean_up(self) -> None:
        if self.joined:
            self.joined = False
            try:
                await PERSON_NEWS.leave(self.channel_layer, self.user_id, self)
            except Exception:
                logger.warning("The site socket: could not leave the group.", exc_info=True)
        if self.stamped:
            self.stamped = False
            try:
                await off_thread(presence.site_leave)(self.user_id, self.channel_name)
            except Exception:
                logger.warning("The site socket: could not note a page leaving.", exc_info=True)

    async def close_for_good(self, code: int, words: str) -> None:
        """As every live page's socket (a ban, too many frames), but the words go to the site socket's
        script, which shows them only if the page's own socket (a table's, the lobby's) has not."""
        self.closing = True
        with translation.override(self.language):
            notice = json.loads(closing_notice(gettext(words)))
        await self.send_text(json.dumps({"kind": "closed", **notice}))
        await self.close(code=code)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        await self.send_text('{"error": "This connection only sends updates."}')

    async def site_counts(self, event: dict) -> None:
        await self.send_text(
            json.dumps(
                {
                    "kind": "counts",
                    "online": event["online"],
                    "at_tables": event["at_tables"],
                    "pools": event["pools"],
                }
            )
        )

    async def pool_paired(self, event: dict) -> None:
        if self.looks:
            url = reverse("gameplay:table", args=[event["table"]])
            await self.send_text(json.dumps({"kind": "paired", "url": url}))

    async def pace_turns(self, event: dict) -> None:
        """The matches at own pace waiting for this person's move changed: the page's count, recounted."""
        if self.user_id is not None:
            count = await off_thread(gameplay_selectors.pace_turns_count)(self.user_id)
            await self.send_text(json.dumps({"kind": "turns", "count": count}))

    async def notice_new(self, event: dict) -> None:
        text = await off_thread(self.notice_text)(event["notice"])
        await self.send_text(text)

    def notice_text(self, notice_id: int) -> str:
        notice = selectors.notice_for(notice_id=notice_id, user_id=self.user_id)
        if notice is None:
            return ""
        html = self.render("social/_notice.html", {"notice": notice, "toast": True})
        return json.dumps(
            {"kind": "notice", "html": html, "unread": selectors.unread_count(user=self.scope["user"])}
        )
