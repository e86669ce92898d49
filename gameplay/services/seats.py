"""Seats changing hands mid-match: a bot standing in for a quiet player (their turn's clock run out, or
every connection of theirs gone for the grace period) until they press "I'm back" or move again; a
moderator replacing a person with a bot for good; a banned person leaving every table; a closed
account's name forgotten in the matches it played. Each change is recorded as a ``SeatChange``."""

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tables import events
from tables import services as table_services
from tables.models import Seat, Table
from tables.services import TableError

from .. import presence, scheduling
from ..engine import get_game
from ..frames import ActionRefused
from ..models import Match, Participant, SeatChange
from . import store


def seat_back(match: Match, seat: int, *, after_move: int) -> bool:
    """The player is back: a bot standing in for them leaves the seat. True when one did."""
    if not table_services.seat_return(match.table_id, seat):
        return False
    SeatChange.objects.create(match=match, seat=seat, kind=SeatChange.Kind.BACK, after_move=after_move)
    return True


@transaction.atomic(durable=True)
def seat_reclaim(*, match_id: int, seat: int) -> bool:
    """The player presses "I'm back": their seat is theirs again (the clock restarts if it is their turn).
    Not at own pace, where a bot stands in for one move and hands the seat back itself."""
    match = store.lock_playing(match_id)
    if store.seats_to_act(match)[seat].pace_seconds:
        return False
    if not seat_back(match, seat, after_move=match.moves_made):
        return False
    game = get_game(match.game)
    store.save(match, game, game.state_from_json(match.state))
    return True


def away_past_grace(table_id: int, seat: int, turn_started_at) -> bool:
    """The seat's player has had no connection open for the whole grace period, counted from their last
    connection's end, and from the turn's start for one who never opened the table (a page still loading)."""
    away = presence.away_seconds(table_id, seat)
    grace = settings.GONE_GRACE_SECONDS
    on_turn = (timezone.now() - turn_started_at).total_seconds()
    return away is not None and min(away, on_turn) >= grace


@transaction.atomic(durable=True)
def seat_stand_in(*, match_id: int, seat: int, expected_version: int, only_if_gone: bool = False) -> bool:
    """A bot stands in for a quiet player (clock run out, connection gone), visibly, until they return.

    Refused (False) when the match has moved on since the check was scheduled, or, with
    ``only_if_gone``, unless the player's connections have all been gone for the grace period.
    """
    try:
        match = store.lock_playing_at(match_id, expected_version)
    except ActionRefused:
        return False
    return stand_in_locked(match, seat, only_if_gone=only_if_gone)


def stand_in_locked(match: Match, seat: int, *, only_if_gone: bool = False) -> bool:
    """``seat_stand_in`` on the locked ``match`` (the own-pace stand-in shares it)."""
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if game.to_act(state) != seat:
        return False
    if only_if_gone and not away_past_grace(match.table_id, seat, match.turn_started_at):
        return False
    if not table_services.seat_stand_in(match.table_id, seat):
        return False
    SeatChange.objects.create(
        match=match, seat=seat, kind=SeatChange.Kind.STOOD_IN, after_move=match.moves_made
    )
    if match.clock_check_at is not None and match.clock_check_at <= timezone.now():
        match.clock_check_at = None  # run now, late or lost: the next turn on the clock queues one
    store.save(match, game, state)
    return True


@transaction.atomic(durable=True)
def clock_check(*, match_id: int, queued_for: datetime) -> bool:
    """The match's turn-clock check, queued for ``queued_for``, runs: a bot stands in if the turn's clock
    has run out; if the players have moved since, and another turn's clock now runs, the check queues
    itself again for that turn's deadline. A check that is no longer the one queued (run twice, or
    taken to be lost and replaced) may stand in but never queues another, so one chain goes on.
    Whether a bot stood in."""
    try:
        match = store.lock_playing(match_id)
    except ActionRefused:
        return False
    mine = match.clock_check_at == queued_for
    if match.due == Match.Due.CLOCK and match.to_act is not None and match.due_at <= timezone.now():
        if stand_in_locked(match, match.to_act):
            return True
    elif match.due == Match.Due.CLOCK and mine:
        match.clock_check_at = match.due_at
        match.save(update_fields=["clock_check_at"])
        scheduling.queue_clock_check(match.pk, match.due_at)
        return False
    if mine:
        # Nothing on the clock to check, or a bot could not stand in (nobody to stand in for): the
        # chain ends, and the next turn on the clock starts one.
        match.clock_check_at = None
        match.save(update_fields=["clock_check_at"])
    return False


@transaction.atomic(durable=True)
def seat_connection_lost(*, table_id: int, seat: int) -> None:
    """The seat's last connection closed: if it is their turn, check again after the grace period."""
    match = Match.objects.filter(table_id=table_id, status=Match.Status.PLAYING).first()
    if match is not None and match.to_act == seat and match.due in (Match.Due.CLOCK, Match.Due.PLAYER):
        scheduling.player_gone(match_id=match.pk, seat=seat, version=match.version)


@transaction.atomic(durable=True)
def player_replace_with_bot(*, table_id: int, position: int) -> Seat:
    """A moderator removes a person from a seat for good; a normal bot takes it, mid-match too: the
    match records the change, every seat hears of it and, if it is that seat's turn, the bot plays."""
    table = table_services.table_lock(table_id)
    if table.status not in Table.NOT_OVER:
        raise TableError(_("This table's match is over."))
    return replace_with_bot_locked(table, position)


@transaction.atomic(durable=True)
def player_remove_banned(*, table_id: int, user_id: int) -> None:
    """A banned person leaves the table for good: in a running match a bot takes their seat at once (as
    ``player_replace_with_bot``), at a table still waiting they stand up and no seat is kept for them.
    Decided under the table's lock, so a table that started meanwhile is not missed."""
    table = table_services.table_lock(table_id)
    if table.status == Table.Status.WAITING:
        table_services.seat_vacate(table, user_id=user_id)
        return
    position = table.seats.filter(user_id=user_id).values_list("position", flat=True).first()
    if table.status == Table.Status.PLAYING and position is not None:
        replace_with_bot_locked(table, position)


def player_banned(sender, *, user_id: int, **kwargs) -> None:
    """``accounts.signals.user_banned``'s receiver (connected in ``apps``), once the ban has committed:
    their live pages are told to close, then every table in play lets them go, each in a transaction of
    its own (as the sweep does)."""
    events.user_banned(user_id)
    tables = (
        Seat.objects.filter(
            Q(user_id=user_id) | Q(reserved_for_id=user_id),
            table__status__in=Table.NOT_OVER,
        )
        .values_list("table_id", flat=True)
        .distinct()
    )
    for table_id in tables:
        player_remove_banned(table_id=table_id, user_id=user_id)


def replace_with_bot_locked(table: Table, position: int) -> Seat:
    """A normal bot takes the seat for good (see ``player_replace_with_bot``). Holding the table's lock."""
    match = Match.objects.select_for_update().filter(table=table, status=Match.Status.PLAYING).first()
    seat = table_services.seat_give_to_bot(table, position)
    if match is None:
        table_services.table_start_if_full(table)
        events.table_changed(table.pk)
        return seat
    moves = match.moves_made
    Participant.objects.filter(match=match, seat=position, until_move__isnull=True).update(until_move=moves)
    Participant.objects.create(match=match, seat=position, bot_level=seat.bot_level, from_move=moves)
    SeatChange.objects.create(match=match, seat=position, kind=SeatChange.Kind.REPLACED, after_move=moves)
    game = get_game(match.game)
    store.save(match, game, game.state_from_json(match.state))
    return seat


def participations_forget(*, user_id: int) -> int:
    """A closed account's seats read "a deleted player" in every match from now on: the name kept for
    them is emptied, while the seats, their moves and their scores stay, so each match stays whole and
    replays for the others. Inside the caller's transaction; how many seats were renamed."""
    return Participant.objects.filter(user_id=user_id).exclude(name="").update(name="")
