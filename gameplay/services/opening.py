"""Opening tables: a table made from the lobby's form (its options are the game's, checked by the
engine), "Play now" with bots, a table for the people the pairing pool brought together, a rematch, and
the deal once a table's last seat fills. Table and Seat rows are written through ``tables.services``."""

import secrets

from django.db import transaction
from django.utils.translation import gettext as _

from tables import events
from tables import services as table_services
from tables.models import Seat, Table
from tables.services import TableError

from .. import scheduling
from ..engine import get_game
from ..models import Match, Participant
from . import store

PLAY_NOW_CLOCK = 45
"""The turn clock of the tables "Play now" makes: with bots, and with the people the pool pairs."""


def options_validate(*, game: str, options: dict) -> dict:
    """The options in the engine's own form; ``TableError`` with the engine's reason when invalid."""
    try:
        engine = get_game(game)
        return engine.options_to_json(engine.options_from_json(options))
    except ValueError as error:
        raise TableError(str(error)) from None


@transaction.atomic(durable=True)
def table_create(
    *,
    host,
    game: str,
    options: dict,
    turn_clock: int,
    is_private: bool,
    fast_bots: bool = False,
    rated: bool = False,
    pace_hours: int = 0,
) -> Table:
    """A new table of ``game`` with the host in seat 0 and every other seat free; ``rated``: the host
    asks for a rated table (``tables.rated`` decides whether its match is, from who sits there);
    ``pace_hours``: at its players' own pace, hours a move (``tables.models.Pace``)."""
    return table_services.table_new(
        host=host,
        game=game,
        options=options_validate(game=game, options=options),
        turn_clock=turn_clock,
        is_private=is_private,
        fast_bots=fast_bots,
        rated_wanted=rated,
        pace_hours=pace_hours,
    )


@transaction.atomic(durable=True)
def play_now(*, user, game: str, fast_bots: bool = False) -> Table:
    """One click: a private table of the game's default options, the player in seat 0 and
    normal bots everywhere else (``fast_bots``: quick ones); the match starts at once."""
    table = table_services.table_new(
        host=user,
        game=game,
        options=options_validate(game=game, options={}),
        turn_clock=PLAY_NOW_CLOCK,
        is_private=True,
        fast_bots=fast_bots,
    )
    table_services.seats_fill_with_bots(table)
    table_services.table_start_if_full(table)
    return table


def table_for_people(
    *,
    people: list,
    game: str,
    options: dict,
    rated: bool,
    bot_level: str = "",
    turn_clock: int = PLAY_NOW_CLOCK,
    is_private: bool = False,
) -> Table:
    """A table of ``game`` for ``people`` the pairing pool (or a tournament) brought together, in that
    order from seat 0 (the first hosts); with ``bot_level``, bots of that level in the seats left.
    ``rated``: the pool's rated side (``tables.rated`` still decides: bots, a private table, or the same
    people too often today, make it casual). Its match starts at once. Inside the caller's
    transaction."""
    table = table_services.table_new(
        host=people[0],
        game=game,
        options=options_validate(game=game, options=options),
        turn_clock=turn_clock,
        is_private=is_private,
        rated_wanted=rated,
    )
    table = table_services.table_lock(table.pk)
    table_services.seats_fill_with_people(table, people[1:])
    if bot_level:
        table_services.seats_fill_with_bots(table, bot_level)
    if not table_services.table_start_if_full(table):
        raise TableError(_("Every seat must hold a person or a bot before the match starts."))
    return table


@transaction.atomic(durable=True)
def rematch_offer(*, table_id: int, by) -> Table:
    """After a match: a new table with the same options and seats. The first to ask creates it
    (and hosts it); the other players' seats are kept for them until they join."""
    table = table_services.table_lock(table_id)
    if table.status != Table.Status.FINISHED:
        raise TableError(_("A rematch can be offered once the match is over."))
    if not table.seats.filter(user=by).exists():
        raise TableError(_("Only the players of this match can ask for a rematch."))
    rematch_id = Table.objects.filter(rematch_of=table).values_list("pk", flat=True).first()
    if rematch_id is not None:
        rematch = table_services.table_lock(rematch_id)
        table_services.table_join_rematch(rematch, user=by)
        return rematch
    rematch = table_services.table_new_rematch(table, by=by)
    table_services.table_start_if_full(rematch)
    events.table_changed(table.pk)
    return rematch


def match_start(*, table: Table) -> Match:
    """Deal a new match for ``table`` from a fresh seed, and record who plays it.

    Called when the table's last seat fills (``tables.signals.table_filled``), inside that
    transaction, holding the table's lock.
    """
    game = get_game(table.game)
    seed = secrets.randbits(63)
    state = game.new_match(game.options_from_json(table.options), seed)
    holders = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    match = Match(
        table=table, game=table.game, options=table.options, seed=seed, state=game.state_to_json(state)
    )
    plan, seat = store.plan_next(match, game, state)
    match.save()
    Participant.objects.bulk_create(
        Participant(
            match=match,
            seat=holder.position,
            user=holder.user,
            bot_level=holder.bot_level,
            name=holder.user.username if holder.user_id else "",
        )
        for holder in holders
    )
    events.table_changed(table.pk, match.version)
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)
    return match


def deal_when_filled(sender, *, table: Table, **kwargs) -> None:
    """``tables.signals.table_filled``'s receiver (connected in ``apps``)."""
    match_start(table=table)
