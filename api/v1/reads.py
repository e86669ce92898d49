"""What a program may read: the token's own account and ratings, leaderboards, a finished match's public
record, the account's own matches as a stream of JSON lines, the tables waiting or playing, and the
tournaments. Each read spends its budgets at the door (``Door``), before any query."""

from collections.abc import AsyncIterator
from datetime import datetime

from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Query, Schema
from ninja.errors import HttpError

from gameplay.models import Match
from history import selectors as history
from history.records import public_record, public_records
from ratings import model as rating_model
from ratings import selectors as ratings
from social import selectors as social
from social.models import Notice
from tables import selectors as tables
from tables.models import Game, Table
from tournaments import selectors as tournaments
from tournaments.models import Tournament

from ..door import Door
from ..services import spend_records
from .routes import caller, json_lines, router, streams

PAGE_MAX = 100
"""The most match records one request of one's own matches returns."""
STREAM_CHUNK = 20
"""Match records built per query while a list of one's own matches streams."""


class GameRatingOut(Schema):
    game: str
    rating: int
    established: bool
    rated_matches: int
    place: int | None


class MeOut(Schema):
    id: int
    username: str
    bot: bool
    joined: datetime
    ratings: list[GameRatingOut]


class PlayerOut(Schema):
    place: int
    username: str
    rating: int
    rated_matches: int


class LeaderboardOut(Schema):
    game: str
    bots: bool
    """The bot accounts' own leaderboard, or the people's."""
    page: int
    pages: int
    players: list[PlayerOut]


class SeatOut(Schema):
    position: int
    player: str | None
    bot_account: bool
    """The player is a bot account (a program playing through the API), not a person."""
    bot: str | None
    free: bool


class TableOut(Schema):
    id: int
    game: str
    options: dict
    status: str
    rated: bool
    turn_clock: int
    pace_hours: int
    url: str
    seats: list[SeatOut]
    watching: int | None = None
    """How many watch a table being played."""


class TournamentOut(Schema):
    id: int
    name: str
    kind: str
    game: str
    options: dict
    status: str
    starts_at: datetime
    ends_at: datetime | None
    playing: int
    url: str


class Page(Schema):
    before: int | None = None
    max: int = 50


@router.get("/me", response=MeOut, auth=Door("read"), tags=["account"])
def me(request: HttpRequest):
    """The account the token acts as, and its rating in each game."""
    user = caller(request).user
    return MeOut(
        id=user.pk,
        username=user.username,
        bot=user.is_bot_account,
        joined=user.date_joined,
        ratings=[
            GameRatingOut(
                game=row.game,
                rating=row.rating.shown if row.rating else rating_model.SHOWN_AT_START,
                established=bool(row.rating and row.rating.established),
                rated_matches=row.rating.matches if row.rating else 0,
                place=row.place,
            )
            for row in ratings.ratings_of(user=user)
        ],
    )


@router.get("/leaderboards/{game}", response=LeaderboardOut, auth=Door(anonymous=True), tags=["ratings"])
def leaderboard(request: HttpRequest, game: str, page: int = 1, bots: bool = False):
    """A game's leaderboard, 100 players a page: established players with a rated match in 30 days;
    with ``bots=true`` the bot accounts' leaderboard of their own."""
    if game not in Game.values:
        raise HttpError(404, _("There is no such game."))
    # as anyone sees it: the API names no "your place" on a board (``/me`` has it)
    board = ratings.leaderboard(game=game, page=page, viewer=AnonymousUser(), bots=bots)
    return LeaderboardOut(
        game=game,
        bots=bots,
        page=board.page.number,
        pages=board.page.paginator.num_pages,
        players=[
            PlayerOut(
                place=board.first_place + index,
                username=row.user.username,
                rating=row.shown,
                rated_matches=row.matches,
            )
            for index, row in enumerate(board.page.object_list)
        ],
    )


@router.get("/matches/{match_id}", auth=Door(), tags=["matches"])
def match_record(request: HttpRequest, match_id: int) -> dict:
    """A finished match's public record: its options, the seats as everyone saw them, every move, the
    score sheet and the result. A private table's match is its players' only, as on the site."""
    who = caller(request)
    spend_records(token=who.token, address=who.address, count=1)
    match = history.match_detail(match_id=match_id)
    if match is None or match.practice or not history.can_view(match=match, user=who.user):
        raise HttpError(404, _("There is no such match."))
    if match.status != history.FINISHED:
        raise HttpError(409, _("This match is not over yet: watch it on its table's page."))
    return public_record(match)


@router.get(
    "/me/matches", auth=Door("read"), tags=["matches"], openapi_extra=streams("One match record a line.")
)
async def my_matches(request: HttpRequest, page: Query[Page]):
    """The account's own finished matches, newest first, one public record a line (JSON lines): at most
    ``max`` (1 to 100) of them, before the match id ``before``; the last line's id is the next page's
    ``before``. Each record spends one from the hourly budget of match records."""
    who = caller(request)
    count = min(max(page.max, 1), PAGE_MAX)
    await sync_to_async(spend_records)(token=who.token, address=who.address, count=count)
    matches = history.matches_of(user=who.user).filter(status=history.FINISHED, practice=False)
    if page.before is not None:
        matches = matches.filter(pk__lt=page.before)
    ids = [pk async for pk in matches.order_by("-pk").values_list("pk", flat=True)[:count]]

    async def records() -> AsyncIterator[dict]:
        for start in range(0, len(ids), STREAM_CHUNK):
            for record in await sync_to_async(_records)(ids[start : start + STREAM_CHUNK]):
                yield record

    return json_lines(records())


def _records(ids: list[int]) -> list[dict]:
    """The records of ``ids`` in their order (newest first)."""
    by_id = {record["id"]: record for record in public_records(Match.objects.filter(pk__in=ids))}
    return [by_id[pk] for pk in ids]


class InvitationOut(Schema):
    id: int
    sender: str
    table_id: int
    game: str
    sent_at: datetime


@router.get("/me/invitations", response=list[InvitationOut], auth=Door("read"), tags=["account"])
def my_invitations(request: HttpRequest):
    """Friends' invitations to their tables not put away yet, newest first: accept one with
    ``POST /notices/{id}/accept``."""
    return [
        InvitationOut(
            id=notice.pk,
            sender=notice.sender.public_name,
            table_id=notice.table_id,
            game=notice.table.game,
            sent_at=notice.created_at,
        )
        for notice in social.notices_of(user=caller(request).user)
        if notice.kind == Notice.Kind.INVITATION and not notice.closed and notice.table_id
    ]


class FriendRequestOut(Schema):
    sender_id: int
    sender: str
    sent_at: datetime


@router.get("/me/friend-requests", response=list[FriendRequestOut], auth=Door("read"), tags=["account"])
def my_friend_requests(request: HttpRequest):
    """Friend requests waiting for the account's answer, newest first: a friend may then invite it to
    their tables (a bot account's challenges). Answer with ``POST /friend-requests/{sender_id}``."""
    return [
        FriendRequestOut(sender_id=asked.sender_id, sender=asked.sender.public_name, sent_at=asked.created_at)
        for asked in social.requests_to(user=caller(request).user)
    ]


def _seat(seat) -> SeatOut:
    return SeatOut(
        position=seat.position,
        player=seat.user.public_name if seat.user_id else None,
        bot_account=bool(seat.user_id and seat.user.is_bot_account),
        bot=seat.bot_level or None,
        free=not seat.user_id and not seat.bot_level,
    )


def _table(table: Table, watching: int | None = None) -> TableOut:
    return TableOut(
        id=table.pk,
        game=table.game,
        options=table.options,
        status=table.status,
        rated=table.is_rated,
        turn_clock=table.turn_clock,
        pace_hours=table.pace_hours,
        url=reverse("gameplay:table", args=[table.pk]),
        seats=[_seat(seat) for seat in table.seats.all()],
        watching=watching,
    )


@router.get("/tables", response=list[TableOut], auth=Door(anonymous=True), tags=["tables"])
def live_tables(request: HttpRequest, game: str | None = None, status: str = "waiting"):
    """Public tables waiting for players (``status=waiting``, newest first, at most 100), or the 20
    being played that most people watch (``status=playing``)."""
    if game is not None and game not in Game.values:
        raise HttpError(404, _("There is no such game."))
    if status == "waiting":
        return [_table(table) for table in tables.open_tables(game=game)[:PAGE_MAX]]
    if status == "playing":
        return [
            _table(live.table, live.watching)
            for live in social.live_tables()
            if game is None or live.table.game == game
        ]
    raise HttpError(422, _("Ask for the tables waiting or playing."))


def _tournament(tournament: Tournament) -> TournamentOut:
    return TournamentOut(
        id=tournament.pk,
        name=tournament.name,
        kind=tournament.kind,
        game=tournament.game,
        options=tournament.options,
        status=tournament.status,
        starts_at=tournament.starts_at,
        ends_at=tournament.ends_at,
        playing=getattr(tournament, "playing", 0),
        url=reverse("tournaments:detail", args=[tournament.pk]),
    )


@router.get("/tournaments", response=list[TournamentOut], auth=Door(anonymous=True), tags=["tournaments"])
def tournament_list(request: HttpRequest):
    """The tournaments running, then those to come, then the last finished: public ones, and the
    private ones the token's account made or entered."""
    who = caller(request)
    lists = tournaments.tournament_lists(viewer=who.user or AnonymousUser())
    return [_tournament(t) for t in [*lists.running, *lists.upcoming, *lists.finished]]


@router.get(
    "/tournaments/{tournament_id}", response=TournamentOut, auth=Door(anonymous=True), tags=["tournaments"]
)
def tournament_detail(request: HttpRequest, tournament_id: int):
    who = caller(request)
    tournament = tournaments.tournament_shown(tournament_id=tournament_id, viewer=who.user or AnonymousUser())
    if tournament is None:
        raise HttpError(404, _("There is no such tournament."))
    return _tournament(tournament)
