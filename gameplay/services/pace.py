"""Matches at their players' own pace (``Table.pace_hours``): a move whose time ran out is played by a
bot for its person, who is told; after ``OWN_PACE_STAND_INS_FOR_GOOD`` such moves in a match the seat is
the bot's for good. And holidays, which stop a person's clocks in every such match.

The deadlines live on the match rows (``Match.Due.PACE``, ``Match.due_at``): the sweep finds the ones
run out, as it does the live clocks', and nothing is queued or polled per match, so a killed worker or
a restarted server loses no deadline however many days away it is."""

import math
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import limits
from accounts.locks import hold_for_person
from tables import services as table_services
from tables.models import Seat

from .. import signals
from ..frames import ActionRefused
from ..models import Holiday, Match, Participant, SeatChange
from . import store
from .seats import replace_with_bot_locked, stand_in_locked

HOLIDAY_LOCKS = 5151
"""The first key of the advisory lock a person's holiday takes (the second is their id): two taps on
"take a holiday" make one."""


class PaceError(Exception):
    """A holiday the rules refuse; the text is for the person."""


def _day() -> timedelta:
    """A day at own pace: 24 of its hours (``OWN_PACE_HOUR_SECONDS`` long)."""
    return timedelta(seconds=24 * settings.OWN_PACE_HOUR_SECONDS)


@transaction.atomic(durable=True)
def pace_stand_in(*, match_id: int, seat: int, expected_version: int) -> bool:
    """The time for ``seat``'s move ran out (the sweep found it): a bot of the seat's normal level plays
    that one move (``moves.act`` hands the seat back once it has), or, at the person's
    ``OWN_PACE_STAND_INS_FOR_GOOD``-th such move in the match, takes the seat for good. Does nothing
    (False) when the match has moved on since the sweep read it or the deadline has not passed."""
    try:
        match = store.lock_playing_at(match_id, expected_version)
    except ActionRefused:
        return False
    if match.due != Match.Due.PACE or match.to_act != seat or match.due_at > timezone.now():
        return False
    user_id = (
        Seat.objects.filter(table_id=match.table_id, position=seat).values_list("user_id", flat=True).first()
    )
    sat_from = (
        Participant.objects.filter(match=match, seat=seat, user_id=user_id, until_move__isnull=True)
        .values_list("from_move", flat=True)
        .first()
    )
    if user_id is None or sat_from is None:
        return False
    missed = (
        1
        + SeatChange.objects.filter(
            match=match, seat=seat, kind=SeatChange.Kind.STOOD_IN, after_move__gte=sat_from
        ).count()
    )
    for_good = missed >= settings.OWN_PACE_STAND_INS_FOR_GOOD
    if for_good:
        replace_with_bot_locked(table_services.table_lock(match.table_id), seat)
    elif not stand_in_locked(match, seat):
        return False
    tell = partial(
        signals.pace_stood_in.send,
        sender=Match,
        match_id=match.pk,
        table_id=match.table_id,
        seat=seat,
        user_id=user_id,
        missed=missed,
        for_good=for_good,
    )
    transaction.on_commit(tell, robust=True)
    return True


# --- Holidays -------------------------------------------------------------------------------------


def holiday_now(user_id: int) -> Holiday | None:
    """The holiday the person is on now, if any."""
    return Holiday.objects.current().filter(user_id=user_id).first()


def holiday_days_left(user_id: int, now: datetime | None = None) -> int:
    """Days of holiday the person may still take this calendar year: ``OWN_PACE_HOLIDAY_DAYS_A_YEAR`` less
    each holiday begun this year, counted in whole days begun (one ended early gives the rest back)."""
    now = now or timezone.now()
    year_began = now.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    day = _day()
    spans = Holiday.objects.filter(user_id=user_id, starts_at__gte=year_began).values_list(
        "starts_at", "ends_at"
    )
    used = sum(math.ceil((ends - starts) / day) for starts, ends in spans)
    return max(0, settings.OWN_PACE_HOLIDAY_DAYS_A_YEAR - used)


def _shift_clocks(user_id: int, by: timedelta) -> int:
    """Move on by ``by`` (back, if negative) the deadline of every move at own pace waiting for the person
    now; each match locked in the site's order and told, as any change of the table is. How many."""
    waiting = Match.objects.waiting_at_own_pace_for(user_id).values_list("pk", flat=True)
    shifted = 0
    for match_id in list(waiting):
        try:
            match = store.lock_playing(match_id)
        except ActionRefused:
            continue
        if match.due == Match.Due.PACE and match.due_at is not None:
            store.save_deadline(match, match.due_at + by)
            shifted += 1
    return shifted


@transaction.atomic(durable=True)
def holiday_start(*, user, days: int, address: str | None = None) -> Holiday:
    """A holiday of ``days`` days from now: the clocks of every match at own pace waiting for the person
    stop (their deadlines move on by its length), and a turn that comes to them during it gets its time
    once it ends. Refused while one runs, or beyond the year's days left; ``address``: the browser's
    (None when not from one), whose budget it spends too."""
    _spend_holiday_change(user.pk, address)
    hold_for_person(HOLIDAY_LOCKS, user.pk)
    if holiday_now(user.pk) is not None:
        raise PaceError(_("You are on holiday already."))
    left = holiday_days_left(user.pk)
    if days < 1 or days > left:
        raise PaceError(
            ngettext(
                "You have %(count)d day of holiday left this year.",
                "You have %(count)d days of holiday left this year.",
                left,
            )
            % {"count": left}
        )
    now = timezone.now()
    holiday = Holiday.objects.create(user=user, starts_at=now, ends_at=now + days * _day())
    _shift_clocks(user.pk, holiday.ends_at - now)
    return holiday


def _spend_holiday_change(user_id: int, address: str | None) -> None:
    """A holiday started or ended early, spent from the person's budget and their address's before any
    database work: each moves the deadlines of every match they play at their own pace."""
    if shortfall := limits.spend_person_and_address(
        "holiday-changes",
        user_id,
        address,
        count=settings.HOLIDAY_CHANGES_PER_DAY,
        address_count=settings.HOLIDAY_CHANGES_PER_ADDRESS_PER_DAY,
        seconds=86400,
        refusal=_("You have started and ended holidays too often today: try again tomorrow."),
        address_refusal=_(
            "Holidays were started and ended too often from your network today: try again tomorrow."
        ),
    ):
        raise PaceError(shortfall.said)


@transaction.atomic(durable=True)
def holiday_end(*, user, address: str | None = None) -> bool:
    """The person is back early: their holiday ends now and their clocks run again, each deadline moved
    back by the part of the holiday not taken. False when they are on none."""
    _spend_holiday_change(user.pk, address)
    hold_for_person(HOLIDAY_LOCKS, user.pk)
    holiday = holiday_now(user.pk)
    if holiday is None:
        return False
    now = timezone.now()
    unused = holiday.ends_at - now
    holiday.ends_at = now
    holiday.save(update_fields=["ends_at"])
    _shift_clocks(user.pk, -unused)
    return True


# --- What a person has seen -----------------------------------------------------------------------


@transaction.atomic(durable=True)
def pace_seen(*, table_id: int, user_id: int, moves: int | None = None) -> int | None:
    """The person had the table's match open up to ``moves`` moves made (None: all made by now): their
    page loaded, or their last page of it closed. Returns how many they had seen before (None: they hold
    no seat in it), which the page shows the moves since ("since you were here").

    Kept on their participation in the match: gameplay's row, per person and match (a rematch starts
    afresh), in the database, so it holds across devices, tabs and restarts; the seat is the table's,
    and a table knows nothing of moves."""
    match = Match.objects.filter(table_id=table_id).order_by("-started_at").only("pk", "moves_made").first()
    if match is None:
        return None
    participant = (
        Participant.objects.select_for_update()
        .filter(match=match, user_id=user_id, until_move__isnull=True)
        .only("pk", "seen_moves")
        .first()
    )
    if participant is None:
        return None
    seen = participant.seen_moves
    upto = match.moves_made if moves is None else moves
    if upto > seen:
        participant.seen_moves = upto
        participant.save(update_fields=["seen_moves"])
    return seen


def holidays_forget(*, user_id: int) -> int:
    """A closed account's holidays go with it (who was away when is theirs alone). Inside the caller's
    transaction; how many."""
    return Holiday.objects.filter(user_id=user_id).delete()[0]
