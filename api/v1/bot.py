"""How a bot account plays (the ``bot`` scope): it lists the matches it sits in, reads one seat's match
as a stream of JSON lines (after every change, exactly what the seat's page knows: the seat's view, its
legal actions when it is to act, the round's public events, the turn clock), and posts a move with the
version it saw. The move goes through ``gameplay.services.act`` as a person's does, with the same
refusals (out of turn, illegal, stale, over); the turn clock applies as to anyone."""

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Schema
from ninja.errors import HttpError

from bots.services import round_history
from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match
from tables import services as table_services
from tables.events import table_group
from tables.models import Seat, Table

from ..door import Caller, Door
from .routes import caller, json_lines, router, streams

BOT = Door("bot")
KEEPALIVE_SECONDS = 20.0
"""A line (``{"type": "ping"}``) at least this often, so proxies keep an idle stream open; and the
match is read again then, should a change's news have been lost (Redis restarting)."""
STREAM_SECONDS = 3600
"""A stream ends after this long with a ``{"type": "reconnect"}`` line (the reader opens another): what a
reader that never reads leaves piled in the server's send buffer is at most an hour of lines, and a
match at its players' own pace, which may last days, holds no stream for all of them."""
STREAM_SLOT_SECONDS = 3 * 3600
"""A token's count of open streams is forgotten this long after its last change (a server process
that died with streams open never gives its slots back)."""


class GameOut(Schema):
    match_id: int
    table_id: int
    game: str
    seat: int
    version: int
    your_turn: bool


class MoveIn(Schema):
    action: dict
    """One of the legal actions the last line listed, as it listed it."""
    version: int
    """The version of the line the move answers: a move against an older one is refused as stale."""


class MoveOut(Schema):
    version: int


def _bot_account(who: Caller):
    if not who.user.is_bot_account:
        raise HttpError(403, _("Only a bot account plays through the API."))
    return who.user


@router.get("/bot/games", response=list[GameOut], auth=BOT, tags=["bot"])
def bot_games(request: HttpRequest):
    """The matches being played at the tables where the bot account sits."""
    user = _bot_account(caller(request))
    playing = Seat.objects.filter(user=user, table__status=Table.Status.PLAYING)
    seats = {seat.table_id: seat.position for seat in playing}
    matches = Match.objects.filter(table_id__in=seats, status=Match.Status.PLAYING).order_by("pk")
    return [
        GameOut(
            match_id=match.pk,
            table_id=match.table_id,
            game=match.game,
            seat=seats[match.table_id],
            version=match.version,
            your_turn=match.to_act == seats[match.table_id],
        )
        for match in matches
    ]


class OfferOut(Schema):
    table_id: int
    game: str
    options: dict
    host: str
    seat: int


@router.get("/bot/offers", response=list[OfferOut], auth=BOT, tags=["bot"])
def bot_offers(request: HttpRequest):
    """Seats hosts keep for the bot account at tables not started yet: take one with
    ``POST /bot/offers/{table_id}/accept``, or turn it down with ``.../decline``."""
    user = _bot_account(caller(request))
    seats = Seat.objects.filter(reserved_for=user, table__status=Table.Status.WAITING).select_related(
        "table__host"
    )
    return [
        OfferOut(
            table_id=seat.table_id,
            game=seat.table.game,
            options=seat.table.options,
            host=seat.table.host.public_name,
            seat=seat.position,
        )
        for seat in seats.order_by("table_id")
    ]


class OfferAnswered(Schema):
    table_id: int
    seat: int | None
    """Where the bot account sits now (None: it declined)."""


@router.post("/bot/offers/{table_id}/accept", response=OfferAnswered, auth=BOT, tags=["bot"])
def bot_offer_accept(request: HttpRequest, table_id: int):
    """Sit down in the seat kept for the bot account; the match starts once every seat is taken."""
    user = _bot_account(caller(request))
    if not Seat.objects.filter(table_id=table_id, reserved_for=user).exists():
        raise HttpError(404, _("No seat is kept for you at this table."))
    token = Table.objects.values_list("invite_token", flat=True).get(pk=table_id)
    seat = table_services.seat_take(table_id=table_id, user=user, token=token)
    return OfferAnswered(table_id=table_id, seat=seat.position)


@router.post("/bot/offers/{table_id}/decline", response=OfferAnswered, auth=BOT, tags=["bot"])
def bot_offer_decline(request: HttpRequest, table_id: int):
    """Turn down the seat kept for the bot account: it is free for anyone again."""
    table_services.seat_decline(table_id=table_id, user=_bot_account(caller(request)))
    return OfferAnswered(table_id=table_id, seat=None)


def seat_line(match_id: int, user_id: int) -> dict:
    """What the bot account's seat knows of the match now, as one line of its stream."""
    match = Match.objects.select_related("table").filter(pk=match_id).first()
    seat = Seat.objects.filter(table_id=match.table_id, user_id=user_id).first() if match else None
    if match is None or seat is None or match.practice:
        raise HttpError(404, _("There is no such match at a table of yours."))
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    playing = match.status == Match.Status.PLAYING
    to_act = game.to_act(state) if playing else None
    your_turn = to_act == seat.position
    deadline: datetime | None = (
        match.due_at if your_turn and match.due in (Match.Due.CLOCK, Match.Due.PACE) else None
    )
    return {
        "type": "state",
        "match_id": match.pk,
        "game": match.game,
        "version": match.version,
        "status": match.status,
        "seat": seat.position,
        "to_act": to_act,
        "your_turn": your_turn,
        "stood_in": seat.is_taken_over,
        "deadline": deadline.isoformat() if deadline else None,
        "view": game.view(state, seat.position),
        "legal": [game.action_to_json(action) for action in game.legal_actions(state)] if your_turn else [],
        "round": round_history(match) if playing else [],
        "result": match.result if not playing else None,
    }


def _slots_key(token_id: int) -> str:
    return f"api:streams:{token_id}"


def _take_slot(token_id: int) -> bool:
    key = _slots_key(token_id)
    cache.add(key, 0, STREAM_SLOT_SECONDS)
    if cache.incr(key) > settings.API_STREAMS_PER_TOKEN:
        cache.decr(key)
        return False
    cache.touch(key, STREAM_SLOT_SECONDS)
    return True


def _give_slot(token_id: int) -> None:
    try:
        if cache.decr(_slots_key(token_id)) < 0:
            cache.delete(_slots_key(token_id))
    except ValueError:  # forgotten meanwhile
        pass


@router.get(
    "/bot/games/{match_id}/stream",
    auth=BOT,
    tags=["bot"],
    openapi_extra=streams("The seat's match: one line after every change, a ping line when idle."),
)
async def bot_stream(request: HttpRequest, match_id: int):
    """The seat's match, one JSON line after every change (the first at once), until the match is over:
    its last line has ``status`` "finished" (or "aborted") and the result. Lines are the latest state, not
    every step: a reader that falls behind gets where the match stands now. After an hour a stream ends
    with a ``{"type": "reconnect"}`` line: open it again. At most ``API_STREAMS_PER_TOKEN`` streams are
    open per token."""
    who = caller(request)
    user = _bot_account(who)
    first = await sync_to_async(seat_line)(match_id, user.pk)
    if not await sync_to_async(_take_slot)(who.token.pk):
        raise HttpError(429, _("This token has as many streams open as allowed: close one first."))
    return json_lines(_seat_lines(first, match_id, user.pk, who.token.pk))


async def _seat_lines(line: dict, match_id: int, user_id: int, token_id: int) -> AsyncIterator[dict]:
    """``line``, then a line whenever the table's news says the match moved on, until it is over. Its
    place in the table's group and the token's stream slot go when the reader does."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = table_group(await sync_to_async(_table_of)(match_id))
    await layer.group_add(group, channel)
    ends = asyncio.get_running_loop().time() + STREAM_SECONDS
    try:
        sent = None
        while True:
            if line["version"] != sent:
                yield line
                sent = line["version"]
            if line["status"] != Match.Status.PLAYING:
                return
            if asyncio.get_running_loop().time() >= ends:
                yield {"type": "reconnect"}
                return
            try:
                await asyncio.wait_for(layer.receive(channel), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield {"type": "ping"}
            line = await sync_to_async(seat_line)(match_id, user_id)
    finally:
        await layer.group_discard(group, channel)
        await sync_to_async(_give_slot)(token_id)


def _table_of(match_id: int) -> int:
    return Match.objects.values_list("table_id", flat=True).get(pk=match_id)


@router.post("/bot/games/{match_id}/move", response=MoveOut, auth=BOT, tags=["bot"])
def bot_move(request: HttpRequest, match_id: int, body: MoveIn):
    """Play ``action`` at the version seen. Refused with why (409): not the seat's turn, not a legal
    action, the match moved on since ``version`` (``version`` in the answer says where it stands) or
    is over."""
    user = _bot_account(caller(request))
    seat = (
        Seat.objects.filter(table__matches__pk=match_id, user=user).values_list("position", flat=True).first()
    )
    if seat is None:
        raise HttpError(404, _("There is no such match at a table of yours."))
    try:
        result = gameplay_services.act(
            match_id=match_id,
            seat=seat,
            action=body.action,
            expected_version=body.version,
            reclaim=True,
            user_id=user.pk,
        )
    except gameplay_services.ActionRefused as refused:
        raise MoveRefused(refused.explain(), refused.version) from None
    return MoveOut(version=result.version)


class MoveRefused(Exception):
    """A move the site did not make: why, and the match's version when the move was stale."""

    def __init__(self, reason: str, version: int | None):
        super().__init__(reason)
        self.version = version
