"""The table's websocket: one connection per browser tab, rendering its own seat's view.

Incoming frames are htmx's form messages (JSON). The seat is always the one the
logged-in user sits in, never something the frame says; anything malformed is
answered with an error for this connection only, and nothing is changed.
"""

import json

from django.utils import translation
from django.utils.translation import gettext as _

from tables import selectors as table_selectors
from tables.consumers import FORBIDDEN, FragmentConsumer, room_context, scope_language

from . import presence, selectors, services
from .events import table_group
from .models import Move

MAX_FRAME = 4096
ACTION_TYPES = {"play", "draw", "take", "sit_out", "end"}
PLAY_FRAGMENTS = ("topbar", "opponents", "center", "hand", "log", "outcome")


def action_from_frame(frame: dict) -> dict:
    """The engine action a form message asks for; ``ValueError`` when it asks for none."""
    kind = frame.get("type") or ("play" if frame.get("suit") else None)
    if kind not in ACTION_TYPES:
        raise ValueError("unknown action")
    if kind != "play":
        return {"type": kind}
    card = frame.get("card")
    if not isinstance(card, str) or not card:
        raise ValueError("no card")
    action = {"type": "play", "card": card}
    if card.startswith("7") and frame.get("suit"):
        action["suit"] = frame["suit"]
    return action


class TableConsumer(FragmentConsumer):
    def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        table = table_selectors.table_detail(table_id=self.table_id)
        user = self.scope["user"]
        if table is None or (
            table.is_private and table_selectors.seat_of(table=table, user=user) is None and not user.is_staff
        ):
            self.close(code=FORBIDDEN)
            return
        self.join(table_group(self.table_id))
        self.accept()
        seat = table_selectors.seat_of(table=table, user=user)
        self.seat = seat.position if seat is not None else None
        if self.seat is not None:
            presence.arrive(self.table_id, self.seat)
        self.send_screen()  # a reconnect lands on the exact current state

    def disconnect(self, code: int) -> None:
        super().disconnect(code)
        if getattr(self, "seat", None) is not None and presence.leave(self.table_id, self.seat) == 0:
            services.seat_connection_lost(table_id=self.table_id, seat=self.seat)

    def table_changed(self, event: dict) -> None:
        self.send_screen()

    def send_screen(self, notice: str = "") -> None:
        # Labels and log lines are made while building the screen, so the language is set for all of it.
        with translation.override(scope_language(self.scope)):
            self._send_screen(notice)

    def _send_screen(self, notice: str) -> None:
        table = table_selectors.table_detail(table_id=self.table_id)
        if table is None:
            return
        match = selectors.current_match(table)
        if match is None or match.version == 0:
            # The waiting room; at the start, a waiting room still open in a tab learns from it to reload.
            room = self.render("tables/detail.html#room", room_context(table, self.scope))
            if match is None:
                self.send(text_data=room)
                return
        else:
            room = ""
        screen = selectors.table_screen(table=table, match=match, user=self.scope["user"])
        context = {"table": table, "screen": screen, "notice": notice}
        parts = [self.render(f"gameplay/table.html#{name}", context) for name in (*PLAY_FRAGMENTS, "notice")]
        self.send(text_data=room + "".join(parts))

    def send_notice(self, notice: str) -> None:
        self.send(text_data=self.render("gameplay/table.html#notice", {"notice": notice}))

    def receive(self, text_data=None, bytes_data=None) -> None:
        with translation.override(scope_language(self.scope)):
            self.handle_frame(text_data)

    def handle_frame(self, text_data: str | None) -> None:
        if text_data is None or len(text_data) > MAX_FRAME:
            self.send_notice(_("That message could not be read."))
            return
        try:
            frame = json.loads(text_data)
            if not isinstance(frame, dict):
                raise ValueError("not an object")
            version = int(frame.get("version"))
        except (ValueError, TypeError):
            self.send_notice(_("That message could not be read."))
            return
        table = table_selectors.table_detail(table_id=self.table_id)
        seat = table_selectors.seat_of(table=table, user=self.scope["user"]) if table else None
        match = selectors.current_match(table) if table else None
        if seat is None:
            self.send_notice(_("You are watching this table: only its players can play."))
            return
        if match is None:
            self.send_notice(_("The match has not started yet."))
            return
        if frame.get("type") == "back":
            services.seat_reclaim(match_id=match.pk, seat=seat.position)
            return
        try:
            action = action_from_frame(frame)
        except ValueError:
            self.send_notice(_("That is not a move of this game."))
            return
        try:
            services.act(
                match_id=match.pk,
                seat=seat.position,
                action=action,
                actor=Move.Actor.PLAYER,
                expected_version=version,
                reclaim=True,
            )
        except services.ActionRefused as refusal:
            if refusal.stale:
                self.send_screen()
            else:
                self.send_notice(refusal.explain())
