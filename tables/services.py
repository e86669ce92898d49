"""Who sits where. Every change locks the table's row first, so two people reaching for
the same seat at once are served one after the other: one sits, the other is told."""

import secrets
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from gameplay import events
from gameplay import services as gameplay_services
from gameplay.engine import get_game

from .models import BotLevel, Seat, Table, TurnClock

DEFAULT_BOT_LEVEL = BotLevel.NORMAL


class TableError(Exception):
    """A seat or table change the rules of the lobby refuse; the text is for the player."""


def _lock(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise TableError(_("This table does not exist.")) from None


def _seat(table: Table, position: int) -> Seat:
    try:
        return table.seats.select_for_update().get(position=position)
    except Seat.DoesNotExist:
        raise TableError(_("This table has no such seat.")) from None


def _require_open(table: Table) -> None:
    if table.status == Table.Status.CLOSED:
        raise TableError(_("This table is closed."))
    if table.status != Table.Status.WAITING:
        raise TableError(_("The match at this table has already started."))


def _require_host(table: Table, user) -> None:
    if table.host_id != user.pk:
        raise TableError(_("Only the host can do that."))


def _changed(table: Table) -> None:
    events.table_changed(table.pk)


def options_validate(*, game: str, options: dict) -> dict:
    """The options in the engine's own form; ``TableError`` with the engine's reason when invalid."""
    try:
        engine = get_game(game)
        return engine.options_to_json(engine.options_from_json(options))
    except ValueError as error:
        raise TableError(str(error)) from None


@transaction.atomic
def table_create(*, host, game: str, options: dict, turn_clock: int, is_private: bool) -> Table:
    """A new table with the host in seat 0 and every other seat free."""
    options = options_validate(game=game, options=options)
    if turn_clock not in TurnClock.values:
        raise TableError(_("Choose a turn clock of 20, 45 or 90 seconds, or none."))
    if turn_clock == TurnClock.NONE and not is_private:
        raise TableError(_("Only private tables may play without a turn clock."))
    table = Table.objects.create(
        game=game, options=options, turn_clock=turn_clock, is_private=is_private, host=host
    )
    Seat.objects.bulk_create(
        Seat(table=table, position=position, user=host if position == 0 else None)
        for position in range(table.players)
    )
    _changed(table)
    return table


def _start_if_full(table: Table) -> None:
    """Start the match once every seat holds a person or a bot. Call holding the table lock."""
    if table.status != Table.Status.WAITING or table.seats.filter(user__isnull=True, bot_level="").exists():
        return
    table.status = Table.Status.PLAYING
    table.started_at = timezone.now()
    table.save(update_fields=["status", "started_at"])
    Seat.objects.filter(table=table).update(reserved_for=None)
    gameplay_services.match_start(table=table)


def _invited(table: Table, user, token: str | None) -> bool:
    """At a private table: its host, a player a seat is kept for (a rematch), or whoever holds the link."""
    return (
        table.host_id == user.pk
        or table.seats.filter(reserved_for=user).exists()
        or (token is not None and secrets.compare_digest(token.encode(), table.invite_token.encode()))
    )


@transaction.atomic
def seat_take(*, table_id: int, user, position: int | None = None, token: str | None = None) -> Seat:
    """Sit ``user`` in ``position`` (or the first seat free for them). A private table seats only
    those it invites (see ``_invited``); ``token`` is its invitation link's."""
    table = _lock(table_id)
    _require_open(table)
    if table.seats.filter(user=user).exists():
        raise TableError(_("You already sit at this table."))
    if table.is_private and not _invited(table, user, token):
        raise TableError(_("This table is private: ask its host for the invitation link."))
    if position is None:
        seat = (
            table.seats.select_for_update().filter(user__isnull=True, bot_level="", reserved_for=user).first()
            or table.seats.select_for_update()
            .filter(user__isnull=True, bot_level="", reserved_for__isnull=True)
            .first()
        )
        if seat is None:
            raise TableError(_("Every seat at this table is taken."))
    else:
        seat = _seat(table, position)
        if not seat.is_free:
            raise TableError(_("Someone else just took this seat. Choose another."))
        if seat.reserved_for_id not in (None, user.pk):
            raise TableError(_("This seat is kept for another player."))
    seat.user = user
    seat.reserved_for = None
    seat.last_seen = timezone.now()
    seat.save(update_fields=["user", "reserved_for", "last_seen"])
    _start_if_full(table)
    _changed(table)
    return seat


@transaction.atomic
def seat_leave(*, table_id: int, user) -> None:
    """Stand up before the match starts. A leaving host hands the table on, or closes it if alone."""
    table = _lock(table_id)
    _require_open(table)
    seat = table.seats.select_for_update().filter(user=user).first()
    if seat is None:
        raise TableError(_("You are not sitting at this table."))
    seat.user = None
    seat.save(update_fields=["user"])
    if table.host_id == user.pk:
        heir = table.seats.filter(user__isnull=False).order_by("position").first()
        if heir is None:
            table.status = Table.Status.CLOSED
            table.finished_at = timezone.now()
            table.save(update_fields=["status", "finished_at"])
        else:
            table.host_id = heir.user_id
            table.save(update_fields=["host"])
    _changed(table)


def _host_edit_seat(table_id: int, by, position: int, edit: Callable[[Seat], None]) -> Seat:
    table = _lock(table_id)
    _require_open(table)
    _require_host(table, by)
    seat = _seat(table, position)
    edit(seat)
    seat.save()
    _start_if_full(table)
    _changed(table)
    return seat


@transaction.atomic
def bot_add(*, table_id: int, by, position: int, level: str) -> Seat:
    """The host puts a bot of ``level`` on a free seat."""
    if level not in BotLevel.values:
        raise TableError(_("Choose a bot level: easy, normal or hard."))

    def add(seat: Seat) -> None:
        if not seat.is_free:
            raise TableError(_("That seat is not free."))
        seat.bot_level = level
        seat.reserved_for = None

    return _host_edit_seat(table_id, by, position, add)


@transaction.atomic
def bot_remove(*, table_id: int, by, position: int) -> Seat:
    def remove(seat: Seat) -> None:
        if not seat.is_bot:
            raise TableError(_("There is no bot on that seat."))
        seat.bot_level = ""

    return _host_edit_seat(table_id, by, position, remove)


@transaction.atomic
def player_kick(*, table_id: int, by, position: int) -> Seat:
    """The host frees a seat taken (or kept) for another person, before the start."""

    def kick(seat: Seat) -> None:
        if seat.user_id == by.pk:
            raise TableError(_("You cannot remove yourself; leave the table instead."))
        if seat.user_id is None and seat.reserved_for_id is None:
            raise TableError(_("There is no player on that seat."))
        seat.user = None
        seat.reserved_for = None

    return _host_edit_seat(table_id, by, position, kick)


def invitation_accept(*, token: str, user) -> Table:
    """Seat whoever opens a private table's link, if a seat is free (or they already sit there)."""
    table = Table.objects.filter(invite_token=token).first()
    if table is None:
        raise TableError(_("This invitation link is not valid."))
    if not table.seats.filter(user=user).exists():
        seat_take(table_id=table.pk, user=user, token=token)
    return table


@transaction.atomic
def play_now(*, user, game: str) -> Table:
    """One click: a private table of the game's default options, the player in seat 0 and
    normal bots everywhere else; the match starts at once."""
    table = table_create(host=user, game=game, options={}, turn_clock=TurnClock.SECONDS_45, is_private=True)
    table = _lock(table.pk)
    table.seats.exclude(position=0).update(bot_level=DEFAULT_BOT_LEVEL)
    _start_if_full(table)
    return table


@transaction.atomic
def rematch_offer(*, table_id: int, by) -> Table:
    """After a match: a new table with the same options and seats. The first to ask creates it
    (and hosts it); the other players' seats are kept for them until they join."""
    table = _lock(table_id)
    if table.status != Table.Status.FINISHED:
        raise TableError(_("A rematch can be offered once the match is over."))
    old_seats = list(table.seats.all())
    if not any(seat.user_id == by.pk for seat in old_seats):
        raise TableError(_("Only the players of this match can ask for a rematch."))
    rematch = Table.objects.filter(rematch_of=table).first()
    if rematch is not None:
        if not rematch.seats.filter(user=by).exists() and rematch.status == Table.Status.WAITING:
            seat_take(table_id=rematch.pk, user=by)
        return rematch
    rematch = Table.objects.create(
        game=table.game,
        options=table.options,
        turn_clock=table.turn_clock,
        is_private=table.is_private,
        host=by,
        rematch_of=table,
    )
    Seat.objects.bulk_create(
        Seat(
            table=rematch,
            position=seat.position,
            user=by if seat.user_id == by.pk else None,
            reserved_for_id=seat.user_id if seat.user_id not in (None, by.pk) else None,
            bot_level=seat.bot_level,
        )
        for seat in old_seats
    )
    rematch = _lock(rematch.pk)
    _start_if_full(rematch)
    _changed(table)
    _changed(rematch)
    return rematch


@transaction.atomic
def table_close(*, table_id: int, reason: str) -> Table:
    """Close a table for good (a moderator's action); a running match is recorded as aborted."""
    table = _lock(table_id)
    if table.status == Table.Status.CLOSED:
        return table
    for match in table.matches.filter(status="playing"):
        gameplay_services.match_abort(match=match, reason=reason)
    table.status = Table.Status.CLOSED
    table.finished_at = timezone.now()
    table.save(update_fields=["status", "finished_at"])
    _changed(table)
    return table


@transaction.atomic
def player_replace_with_bot(*, table_id: int, position: int) -> Seat:
    """A moderator removes a person from a seat; a normal bot takes it (mid-match too)."""
    table = _lock(table_id)
    seat = _seat(table, position)
    if seat.user_id is None:
        raise TableError(_("There is no player on that seat."))
    seat.user = None
    seat.is_taken_over = False
    seat.bot_level = DEFAULT_BOT_LEVEL
    seat.save(update_fields=["user", "is_taken_over", "bot_level"])
    _start_if_full(table)
    _changed(table)
    return seat
