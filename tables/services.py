"""Who sits where: the one writer of ``Table`` and ``Seat`` rows.

Every change locks the table's row first, so two people reaching for the same seat at once are
served one after the other: one sits, the other is told.

Lock order, everywhere in the site: **Table → Match → Seat**. A service that changes a table and its
match (gameplay's) locks the table here first, then its match, then writes seats through the
functions below marked "inside the caller's transaction". A person sitting down in the lobby then
locks their own row and their pool entry (``signals.person_sitting``).

The public services (``seat_take``, ``bot_add``...) are each one durable transaction: they are
the outermost call, never run half inside another's. The functions marked "inside the caller's
transaction" are the row writes gameplay makes while it holds the locks. A table knows nothing of
matches or game rules: gameplay creates tables (it checks the options) and, when the last seat fills
(``signals.table_filled``), deals.

Whether a table is rated is decided again (``rated.casual_reason``) at every seat change while it
waits, and for good when it starts (``table_start_if_full``): see ``rated``.
"""

import secrets
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.locks import hold_for_person

from . import events
from .models import BotLevel, Casual, Pace, Seat, Table, TurnClock
from .rated import casual_reason
from .signals import person_sitting, table_filled

DEFAULT_BOT_LEVEL = BotLevel.NORMAL


class TableError(Exception):
    """A seat or table change the rules of the lobby refuse; the text is for the player."""


def table_lock(table_id: int) -> Table:
    """The table's row, locked until the transaction ends (the first lock of the order)."""
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise TableError(_("This table does not exist.")) from None


def _seat(table: Table, position: int | None) -> Seat:
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


def table_new(
    *,
    host,
    game: str,
    options: dict,
    turn_clock: int,
    is_private: bool,
    fast_bots: bool = False,
    rated_wanted: bool = False,
    pace_hours: int = Pace.LIVE,
) -> Table:
    """A new table with the host in seat 0 and every other seat free. Inside the caller's transaction.

    ``options`` are the game's, already checked by its rules (gameplay's ``table_create`` does);
    ``rated_wanted``: the host asks for a rated table (``rated`` decides whether it is); ``pace_hours``:
    a table at its players' own pace, that many hours a move (``Pace``), instead of the turn clock.
    """
    if pace_hours not in Pace.values:
        raise TableError(_("Choose a time per move of 12 hours, or 1, 2, 3 or 7 days."))
    if pace_hours:
        get_user_model().objects.select_for_update(no_key=True).filter(pk=host.pk).first()
        _require_own_pace_room(host)
    if turn_clock not in TurnClock.values:
        raise TableError(_("Choose a turn clock of 20, 45 or 90 seconds, or none."))
    if turn_clock == TurnClock.NONE and not is_private:
        raise TableError(_("Only private tables may play without a turn clock."))
    table = Table.objects.create(
        game=game,
        options=options,
        turn_clock=turn_clock,
        is_private=is_private,
        fast_bots=fast_bots,
        rated_wanted=rated_wanted,
        pace_hours=pace_hours,
        host=host,
    )
    Seat.objects.bulk_create(
        Seat(table=table, position=position, user=host if position == 0 else None)
        for position in range(table.players)
    )
    rated_decide(table)
    events.table_changed(table.pk)
    return table


def table_new_practice(
    *, host, game: str, options: dict, bot_levels: list[str], started_at, finished_at
) -> Table:
    """The table a practice match played offline is filed under: private, without a clock, already
    closed (nobody sits down or asks for a rematch there), the host in seat 0 and the bots of
    ``bot_levels`` in the others. Inside the caller's transaction; ``options`` already checked."""
    table = Table.objects.create(
        game=game,
        options=options,
        turn_clock=TurnClock.NONE,
        is_private=True,
        casual_because=Casual.PRIVATE,
        host=host,
        status=Table.Status.CLOSED,
        started_at=started_at,
        finished_at=finished_at,
    )
    bots = [Seat(table=table, position=seat, bot_level=level) for seat, level in enumerate(bot_levels, 1)]
    Seat.objects.bulk_create([Seat(table=table, position=0, user=host), *bots])
    return table


def rated_decide(table: Table) -> None:
    """Decide again whether the waiting ``table`` is rated (``rated.casual_reason``), from its seats as
    they are now, and store the answer. Inside the caller's transaction, holding the table's lock."""
    if table.status != Table.Status.WAITING:
        return  # decided for good when it started
    reason = casual_reason(table, list(table.seats.select_related("user", "reserved_for")))
    if (table.is_rated, table.casual_because) != (not reason, reason):
        table.is_rated, table.casual_because = not reason, reason
        table.save(update_fields=["is_rated", "casual_because"])


RATED_START_LOCKS = 4848
"""The first key of the advisory locks ``_people_starting`` takes (the second is a person's id)."""


def _people_starting(table: Table) -> None:
    """Lock the people of a table about to start, in id order, until the transaction ends: two tables
    of the same two people starting at once (each joined by a different one of them) then count each
    other's start against ``RATED_PAIR_DAILY``. Advisory locks, not the people's rows: a joiner already
    holds their own row (``_seat_take``), and taking the others' rows would deadlock two such starts."""
    for user_id in sorted(table.seats.filter(user__isnull=False).values_list("user_id", flat=True)):
        hold_for_person(RATED_START_LOCKS, user_id)


def table_start_if_full(table: Table) -> bool:
    """Decide whether ``table`` is rated from its seats as they now are (``rated_decide``); once every
    seat holds a person or a bot, that decision is its match's: the table is playing and gameplay
    deals (``signals.table_filled``). Inside the caller's transaction, holding the table's lock."""
    full = (
        table.status == Table.Status.WAITING
        and not table.seats.filter(user__isnull=True, bot_level="").exists()
    )
    if full and table.rated_wanted:
        _people_starting(table)
    rated_decide(table)
    if not full:
        return False
    table.status = Table.Status.PLAYING
    table.started_at = timezone.now()
    table.save(update_fields=["status", "started_at"])
    Seat.objects.filter(table=table).update(reserved_for=None)
    table_filled.send(sender=Table, table=table)
    return True


def _invited(table: Table, user, token: str | None) -> bool:
    """At a private table: its host, a player a seat is kept for (a rematch), or whoever holds the link."""
    return (
        table.host_id == user.pk
        or table.seats.filter(reserved_for=user).exists()
        or (token is not None and secrets.compare_digest(token.encode(), table.invite_token.encode()))
    )


def _require_own_pace_room(user) -> None:
    """Refuse a person who already sits at ``OWN_PACE_MATCHES_MAX`` tables at their own pace (waiting or
    playing): each waits days for their moves, and a hundred would wait on them for ever."""
    sitting = Seat.objects.filter(
        user=user, table__pace_hours__gt=0, table__status__in=Table.NOT_OVER
    ).count()
    if sitting >= settings.OWN_PACE_MATCHES_MAX:
        raise TableError(
            ngettext(
                "You already play %(count)d match at your own pace: finish it before you sit at another.",
                "You already play %(count)d matches at your own pace: finish one before you sit at another.",
                sitting,
            )
            % {"count": sitting}
        )


def _seat_take(table: Table, user, position: int | None, token: str | None) -> Seat:
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
    # The person's own row, for no key update (the pool's join takes it first too), then whatever else
    # would seat them: the pool and the lobby never seat one person twice.
    get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
    if table.is_own_pace:
        _require_own_pace_room(user)  # counted holding their row: two tabs cannot both take the last
    person_sitting.send(sender=Table, table=table, user=user)
    seat.user = user
    seat.reserved_for = None
    seat.last_seen = timezone.now()
    seat.save(update_fields=["user", "reserved_for", "last_seen"])
    table_start_if_full(table)
    events.table_changed(table.pk)
    return seat


@transaction.atomic(durable=True)
def seat_take(*, table_id: int, user, position: int | None = None, token: str | None = None) -> Seat:
    """Sit ``user`` in ``position`` (or the first seat free for them). A private table seats only
    those it invites (see ``_invited``); ``token`` is its invitation link's."""
    return _seat_take(table_lock(table_id), user, position, token)


def _stand_up(table: Table, seat: Seat) -> None:
    """The person on ``seat`` stands up before the match starts. A leaving host hands the table on, or
    closes it if alone. Holding the table's lock and the seat's."""
    leaving = seat.user_id
    seat.user = None
    seat.save(update_fields=["user"])
    if table.host_id == leaving:
        heir = table.seats.filter(user__isnull=False).order_by("position").first()
        if heir is None:
            table_mark_closed(table)
        else:
            table.host_id = heir.user_id
            table.save(update_fields=["host"])
    rated_decide(table)
    events.table_changed(table.pk)


@transaction.atomic(durable=True)
def seat_leave(*, table_id: int, user) -> None:
    """Stand up before the match starts. A leaving host hands the table on, or closes it if alone."""
    table = table_lock(table_id)
    _require_open(table)
    seat = table.seats.select_for_update().filter(user=user).first()
    if seat is None:
        raise TableError(_("You are not sitting at this table."))
    _stand_up(table, seat)


def _host_edit_seat(table_id: int, by, position: int | None, edit: Callable[[Seat], None]) -> Seat:
    table = table_lock(table_id)
    _require_open(table)
    _require_host(table, by)
    seat = _seat(table, position)
    edit(seat)
    seat.save()
    table_start_if_full(table)
    events.table_changed(table.pk)
    return seat


@transaction.atomic(durable=True)
def bot_add(*, table_id: int, by, position: int | None, level: str) -> Seat:
    """The host puts a bot of ``level`` on a free seat."""
    if level not in BotLevel.values:
        raise TableError(_("Choose a bot level: easy, normal or hard."))

    def add(seat: Seat) -> None:
        if not seat.is_free:
            raise TableError(_("That seat is not free."))
        seat.bot_level = level
        seat.reserved_for = None

    return _host_edit_seat(table_id, by, position, add)


@transaction.atomic(durable=True)
def bot_remove(*, table_id: int, by, position: int | None) -> Seat:
    def remove(seat: Seat) -> None:
        if not seat.is_bot:
            raise TableError(_("There is no bot on that seat."))
        seat.bot_level = ""

    return _host_edit_seat(table_id, by, position, remove)


@transaction.atomic(durable=True)
def player_kick(*, table_id: int, by, position: int | None) -> Seat:
    """The host frees a seat taken (or kept) for another person, before the start."""

    def kick(seat: Seat) -> None:
        if seat.user_id == by.pk:
            raise TableError(_("You cannot remove yourself; leave the table instead."))
        if seat.user_id is None and seat.reserved_for_id is None:
            raise TableError(_("There is no player on that seat."))
        seat.user = None
        seat.reserved_for = None

    return _host_edit_seat(table_id, by, position, kick)


@transaction.atomic(durable=True)
def seat_bot_account(*, table_id: int, by, bot_user, position: int | None = None) -> Seat:
    """The host seats a bot account on a free seat (``position``, else the first) before the start.
    Their own bot account sits down at
    once; anyone else's is offered the seat: it is kept for the bot account (as a rematch keeps one)
    until it takes it through the API (``seat_take``), declines it (``seat_decline``) or the host frees
    it (``player_kick``). A bot account's owner decides where it plays, not a stranger's host."""
    table = table_lock(table_id)
    _require_open(table)
    _require_host(table, by)
    bot = get_user_model().objects.filter(pk=bot_user.pk).first()
    if bot is None or not bot.is_bot_account or not bot.is_active or bot.erased_at:
        raise TableError(_("Only an open bot account can be seated this way."))
    if table.seats.filter(user=bot).exists() or table.seats.filter(reserved_for=bot).exists():
        raise TableError(_("This bot account is at this table already."))
    if position is None:
        free = table.seats.filter(user__isnull=True, bot_level="", reserved_for__isnull=True)
        position = free.order_by("position").values_list("position", flat=True).first()
        if position is None:
            raise TableError(_("Every seat at this table is taken."))
    seat = _seat(table, position)
    if not seat.is_free or seat.reserved_for_id is not None:
        raise TableError(_("That seat is not free."))
    if bot.bot_owner_id == by.pk:
        return _seat_take(table, bot, seat.position, table.invite_token)
    seat.reserved_for = bot
    seat.save(update_fields=["reserved_for"])
    rated_decide(table)
    events.table_changed(table.pk)
    return seat


@transaction.atomic(durable=True)
def seat_decline(*, table_id: int, user) -> None:
    """``user`` turns down the seat a table keeps for them (a host's offer to a bot account, a
    rematch): the seat is free for anyone again."""
    table = table_lock(table_id)
    _require_open(table)
    seat = table.seats.select_for_update().filter(reserved_for=user).first()
    if seat is None:
        raise TableError(_("No seat is kept for you at this table."))
    seat.reserved_for = None
    seat.save(update_fields=["reserved_for"])
    rated_decide(table)
    events.table_changed(table.pk)


@transaction.atomic(durable=True)
def invitation_accept(*, token: str, user) -> Table:
    """Seat whoever opens a private table's link, if a seat is free (or they already sit there)."""
    table_id = Table.objects.filter(invite_token=token).values_list("pk", flat=True).first()
    if table_id is None:
        raise TableError(_("This invitation link is not valid."))
    table = table_lock(table_id)
    if not table.seats.filter(user=user).exists():
        _seat_take(table, user, None, token)
    return table


# --- Row writes gameplay makes while it holds the locks (Table → Match → Seat) ------------------


def seats_fill_with_people(table: Table, people: list) -> None:
    """``people`` take the free seats in order, from the lowest position. Inside the caller's
    transaction, holding the table's lock (a table just made, that nobody else has seen yet)."""
    free = list(table.seats.select_for_update().filter(user__isnull=True, bot_level="").order_by("position"))
    if len(people) > len(free):
        raise TableError(_("Every seat at this table is taken."))
    now = timezone.now()
    for seat, person in zip(free, people, strict=False):
        seat.user, seat.reserved_for, seat.last_seen = person, None, now
    Seat.objects.bulk_update(free[: len(people)], ["user", "reserved_for", "last_seen"])
    events.table_changed(table.pk)


def seats_fill_with_bots(table: Table, level: str = DEFAULT_BOT_LEVEL) -> None:
    """Every free seat gets a bot of ``level``. Inside the caller's transaction, holding the table's lock."""
    table.seats.filter(user__isnull=True, bot_level="").update(bot_level=level, reserved_for=None)


def table_new_rematch(table: Table, *, by) -> Table:
    """A new table with ``table``'s options and seats, hosted by ``by``: their seat is theirs, the other
    people's seats are kept for them, the bots stay. Inside the caller's transaction."""
    old_seats = list(table.seats.all())
    rematch = Table.objects.create(
        game=table.game,
        options=table.options,
        turn_clock=table.turn_clock,
        is_private=table.is_private,
        fast_bots=table.fast_bots,
        rated_wanted=table.rated_wanted,
        pace_hours=table.pace_hours,
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
    events.table_changed(rematch.pk)
    return table_lock(rematch.pk)


def table_join_rematch(rematch: Table, *, user) -> None:
    """``user`` takes the seat kept for them at a rematch still waiting. Inside the caller's transaction."""
    if rematch.status == Table.Status.WAITING and not rematch.seats.filter(user=user).exists():
        _seat_take(rematch, user, None, None)


def table_mark_finished(table_id: int, *, at) -> None:
    """The table's match is decided. Inside the caller's transaction, holding the table's lock."""
    Table.objects.filter(pk=table_id).update(status=Table.Status.FINISHED, finished_at=at)


def table_mark_closed(table: Table) -> None:
    """The table is closed for good. Inside the caller's transaction, holding the table's lock."""
    table.status = Table.Status.CLOSED
    table.finished_at = timezone.now()
    table.save(update_fields=["status", "finished_at"])
    events.table_changed(table.pk)


def seat_vacate(table: Table, *, user_id: int) -> None:
    """A banned person leaves a table still waiting: they stand up (as ``seat_leave``) and no seat is kept
    for them any more. Inside the caller's transaction, holding the table's lock."""
    kept = table.seats.filter(reserved_for_id=user_id).update(reserved_for=None)
    seat = table.seats.select_for_update().filter(user_id=user_id).first()
    if seat is not None:
        _stand_up(table, seat)
    elif kept:
        rated_decide(table)
        events.table_changed(table.pk)


def seat_give_to_bot(table: Table, position: int) -> Seat:
    """A moderator's removal of the person on a seat: a normal bot takes it for good.
    Inside the caller's transaction, holding the table's lock (and its match's, if one runs)."""
    seat = _seat(table, position)
    if seat.user_id is None:
        raise TableError(_("There is no player on that seat."))
    seat.user = None
    seat.is_taken_over = False
    seat.taken_over_at = None
    seat.bot_level = DEFAULT_BOT_LEVEL
    seat.save(update_fields=["user", "is_taken_over", "taken_over_at", "bot_level"])
    return seat


def seat_stand_in(table_id: int, position: int) -> bool:
    """A bot stands in for the person on the seat until they are back; False when none sits there or
    one already stands in. Inside the caller's transaction, holding the table's and the match's locks."""
    return bool(
        Seat.objects.filter(
            table_id=table_id, position=position, user__isnull=False, is_taken_over=False
        ).update(is_taken_over=True, taken_over_at=timezone.now())
    )


def seat_return(table_id: int, position: int) -> bool:
    """The person is back: the bot standing in leaves the seat. True when one did.
    Inside the caller's transaction, holding the table's and the match's locks."""
    return bool(
        Seat.objects.filter(table_id=table_id, position=position, is_taken_over=True).update(
            is_taken_over=False, taken_over_at=None
        )
    )
