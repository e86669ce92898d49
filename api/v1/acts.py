"""What a program may do for its account (the ``play`` scope): wait in the pairing pool and leave it,
make a table, accept an invitation, join a tournament. Each calls the service the site's own pages
call, with the same checks and the same budgets (the address's too)."""

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Schema
from ninja.errors import HttpError

from gameplay.services import table_create as gameplay_table_create
from social import selectors as social
from social.services import friends, invitations, pool
from tables import services as table_services
from tables.models import Pace, TurnClock
from tournaments import selectors as tournaments
from tournaments.services import entering

from ..door import Door
from ..services import spend_table
from .routes import caller, router

PLAY = Door("play")


class PoolIn(Schema):
    game: str
    players: int
    length: int | str
    """Americana: the target (101, 301 or 501); classic: the match (points8, points21, games1..3)."""
    fill_with_bots: bool = False
    casual: bool = False


class PoolOut(Schema):
    waiting: bool
    pool: str | None
    table_id: int | None
    table_url: str | None


def _pool_state(entry_pool: str | None, table_id: int | None) -> PoolOut:
    return PoolOut(
        waiting=entry_pool is not None and table_id is None,
        pool=entry_pool,
        table_id=table_id,
        table_url=reverse("gameplay:table", args=[table_id]) if table_id else None,
    )


@router.post("/pool", response=PoolOut, auth=PLAY, tags=["pool"])
def pool_join(request: HttpRequest, body: PoolIn):
    """Wait in the pool for a match like this one (joining another pool leaves the last). While waiting,
    ask ``GET /pool`` every few seconds: the pool forgets whoever it has not heard from for 10 seconds,
    and that answer names the table once the pool has seated the account."""
    who = caller(request)
    entry = pool.pool_join(
        user=who.user,
        game=body.game,
        players=body.players,
        length=body.length,
        fill_with_bots=body.fill_with_bots,
        casual=body.casual,
        address=who.address,
    )
    return _pool_state(entry.pool, entry.table_id)


@router.get("/pool", response=PoolOut, auth=PLAY, tags=["pool"])
def pool_state(request: HttpRequest):
    """Still waiting (and still heard from), or the table the pool made."""
    user = caller(request).user
    tables_made = pool.pool_seen(user_ids=[user.pk])
    entry = social.pool_entry_of(user=user)
    return _pool_state(entry.pool if entry else None, tables_made.get(user.pk))


@router.delete("/pool", response=PoolOut, auth=PLAY, tags=["pool"])
def pool_leave(request: HttpRequest):
    """Stop waiting. If the pool had already seated the account, the answer names that table."""
    table_id = pool.pool_leave(user=caller(request).user)
    return _pool_state(None, table_id)


class TableIn(Schema):
    game: str
    options: dict = {}
    """The game's options as the engine reads them (``players``, ``target``, ``jokers``... for
    Americana; ``players``, ``match``... for classic); the rest are the game's defaults."""
    turn_clock: int = TurnClock.SECONDS_45
    private: bool = False
    rated: bool = True
    fast_bots: bool = False
    pace_hours: int = Pace.LIVE


class TableMade(Schema):
    id: int
    url: str
    invitation_url: str
    rated: bool


@router.post("/tables", response={201: TableMade}, auth=PLAY, tags=["tables"])
def table_new(request: HttpRequest, body: TableIn):
    """A new table with the account in seat 0. Its invitation link seats whoever opens it (or whoever
    accepts it here), as on the site."""
    who = caller(request)
    spend_table(token=who.token)
    table = gameplay_table_create(
        host=who.user,
        game=body.game,
        options=body.options,
        turn_clock=body.turn_clock,
        is_private=body.private,
        fast_bots=body.fast_bots,
        rated=body.rated,
        pace_hours=body.pace_hours,
    )
    return 201, TableMade(
        id=table.pk,
        url=reverse("gameplay:table", args=[table.pk]),
        invitation_url=reverse("tables:invitation", args=[table.invite_token]),
        rated=table.is_rated,
    )


class Seated(Schema):
    table_id: int
    table_url: str


def _seated(table_id: int) -> Seated:
    return Seated(table_id=table_id, table_url=reverse("gameplay:table", args=[table_id]))


@router.post("/invitations/{token}/accept", response=Seated, auth=PLAY, tags=["tables"])
def invitation_link_accept(request: HttpRequest, token: str):
    """Sit down at the table of an invitation link (its last part is the ``token``)."""
    table = table_services.invitation_accept(token=token, user=caller(request).user)
    return _seated(table.pk)


@router.post("/notices/{notice_id}/accept", response=Seated, auth=PLAY, tags=["tables"])
def invitation_accept(request: HttpRequest, notice_id: int):
    """Accept a friend's invitation to their table (its id in ``GET /me/invitations``)."""
    table_id = invitations.invitation_accept(user=caller(request).user, notice_id=notice_id)
    return _seated(table_id)


class AnswerIn(Schema):
    accept: bool


class Answered(Schema):
    sender_id: int
    friends: bool


@router.post("/friend-requests/{sender_id}", response=Answered, auth=PLAY, tags=["account"])
def friend_request_answer(request: HttpRequest, sender_id: int, body: AnswerIn):
    """Accept (``{"accept": true}``) or decline a friend request: friends invite each other to tables."""
    friends.friend_request_answer(user=caller(request).user, sender_id=sender_id, accept=body.accept)
    return Answered(sender_id=sender_id, friends=body.accept)


class TournamentIn(Schema):
    token: str = ""
    """A private tournament's: the last part of its link."""


class Entered(Schema):
    tournament_id: int
    paused: bool


@router.post("/tournaments/{tournament_id}/join", response=Entered, auth=PLAY, tags=["tournaments"])
def tournament_join(request: HttpRequest, tournament_id: int, body: TournamentIn | None = None):
    """Enter a tournament (or come back to one after a pause). Joining twice changes nothing."""
    who = caller(request)
    token = body.token if body else ""
    if tournaments.tournament_shown(tournament_id=tournament_id, viewer=who.user, token=token) is None:
        raise HttpError(404, _("There is no such tournament."))
    entry = entering.tournament_join(
        user=who.user, tournament_id=tournament_id, token=token, address=who.address
    )
    return Entered(tournament_id=tournament_id, paused=entry.paused)


@router.post("/tournaments/{tournament_id}/withdraw", response=Entered, auth=PLAY, tags=["tournaments"])
def tournament_withdraw(request: HttpRequest, tournament_id: int):
    """Leave a tournament: before it starts the entry goes, once it runs the account is paused."""
    who = caller(request)
    entry = entering.tournament_withdraw(user=who.user, tournament_id=tournament_id, address=who.address)
    return Entered(tournament_id=tournament_id, paused=bool(entry and entry.paused))
