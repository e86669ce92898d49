"""The chat on the table's socket: a part of every table page's socket (``gameplay.socket_parts``,
registered in ``ChatConfig.ready``), reading the chat's frames beside the moves and showing each reader
the lines meant for them, in their language."""

import json
import logging

from django.db import DatabaseError
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from accounts.selectors import still_active
from gameplay.consumers import TableConsumer
from gameplay.shared_tables import SHARED_TABLES
from gameplay.socket_parts import TableSocketPart
from tables.consumers import BANNED_WORDS, off_thread
from tables.fragments import FORBIDDEN

from . import frames, selectors, services
from .models import Report, Room
from .templatetags.chat_tags import drawer_context

UNREADABLE = gettext_noop("That message could not be read.")
NOT_DONE = gettext_noop("The server could not do that just now: try again.")

logger = logging.getLogger(__name__)


class TableChat(TableSocketPart):
    """The chat on one table page's socket. A line is shown to a reader who may read its room (the
    players' to the seated only) and who neither ignores its author nor has a block with them; lines
    come with their news (no read per reader), rendered in the reader's language."""

    page: TableConsumer
    hidden: frozenset[int] = frozenset()

    async def connect(self) -> None:
        self.hidden = await off_thread(selectors.hidden_authors)(user=self.page.scope["user"])

    def first_text(self) -> str:
        """The chat's lines as they stand."""
        return self.chat_text(("logs",))

    async def receive(self, text_data: str | None) -> bool:
        frame = frames.parse(text_data)
        if frame is None:
            return False
        user = self.page.scope["user"]
        if user.is_authenticated and not await off_thread(still_active)(user_id=user.pk):
            # Banned or erased, and the ban's news never reached this page: it stops here.
            await self.page.close_for_good(FORBIDDEN, BANNED_WORDS)
            return True
        await self.page.send_text(await off_thread(self.chat_reply)(frame))
        return True

    def chat_reply(self, frame: frames.ChatFrame | frames.Unreadable) -> str:
        """Do what a chat frame asks; the fragments to answer this page with. A statement the database
        failed undid the whole of it: the page is told to try again, and keeps what was typed."""
        with translation.override(self.page.language):
            if isinstance(frame, frames.Unreadable):
                return self.chat_notice(gettext(UNREADABLE))
            try:
                return self._chat_act(frame)
            except services.ChatRefused as refusal:
                return self.chat_notice(refusal.explain())
            except DatabaseError:
                table_id = self.page.table_id
                logger.warning("Table %s: the database failed a chat frame.", table_id, exc_info=True)
                return self.chat_notice(gettext(NOT_DONE))

    def _chat_act(self, frame: frames.ChatFrame) -> str:
        user = self.page.scope["user"]
        if frame.kind == "chat":
            services.chat_say(table_id=self.page.table_id, user=user, phrase=frame.phrase, text=frame.text)
            return self.chat_text(("composer",)) + self.chat_notice("")
        if frame.kind == "chat_report":
            services.chat_report(
                user=user, message_id=frame.target, reason=frame.reason, address=self.page.address
            )
            return self.chat_notice(gettext("Thank you: a moderator will read it."))
        if frame.kind == "chat_phrases_only":
            # The host's page shows the switch at once; the table's other pages hear of it a moment
            # later, once for a burst of switches (``chat.events.settings_changed``).
            services.chat_set_phrases_only(table_id=self.page.table_id, user=user, on=frame.on)
            return self.chat_text(("composer",)) + self.chat_notice("")
        # The rest is shown by their news, on every page it concerns, this one included: the
        # person's (``user_chat_standing``: whom they ignore, their warnings).
        if frame.kind == "chat_ignore":
            services.chat_ignore(user=user, message_id=frame.target, address=self.page.address)
        elif frame.kind == "chat_unignore":
            services.chat_unignore(user=user, ignored_id=frame.target)
        elif frame.kind == "chat_warnings_seen":
            services.warnings_seen(user=user)
        return self.chat_notice("")

    def chat_text(self, parts: tuple[str, ...]) -> str:
        """The drawer's ``parts`` (its ``logs``, its ``composer``) as they stand for this reader."""
        shared = SHARED_TABLES.latest(self.page.table_id)
        if shared is None:
            return ""
        context = drawer_context(
            table=shared.table,
            user=self.page.scope["user"],
            hidden=self.hidden,
            logs="logs" in parts,
            composer="composer" in parts,
        )
        return "".join(self.page.render(f"chat/_chat.html#{part}", context) for part in parts)

    def chat_notice(self, words: str) -> str:
        return self.page.render("chat/_chat.html#notice", {"chat_notice": words})

    def may_read(self, line: dict) -> bool:
        if line["author_id"] in self.hidden:
            return False
        return line["room"] != Room.PLAYERS or self.page.seat_shown is not None

    async def chat_said(self, event: dict) -> None:
        line = event["line"]
        if not self.may_read(line):
            return
        html = self.page.render(
            "chat/_chat.html#line", {"line": selectors.Line.from_news(line), "reasons": Report.Reason.choices}
        )
        await self.page.send_text(
            json.dumps({"content": html, "target": f"#chat-log-{line['room']}", "swap": "beforeend"})
        )

    async def chat_removed(self, event: dict) -> None:
        if event.get("room") == Room.PLAYERS and self.page.seat_shown is None:
            return  # a spectator never had the line
        context = {"message_id": event["message"], "erased": event.get("erased", False)}
        await self.page.send_text(self.page.render("chat/_removed.html", context))

    async def chat_settings(self, event: dict) -> None:
        await self.page.send_text(await off_thread(self.chat_text)(("composer",)))

    async def user_chat_standing(self, event: dict) -> None:
        """Whom this page's person ignores, or what a moderator decided, changed (from any page)."""
        user = self.page.scope["user"]
        self.hidden = await off_thread(selectors.hidden_authors)(user=user)
        await self.page.send_text(await off_thread(self.chat_text)(("logs", "composer")))
