"""Stopping a match, and the sweep that sees nothing waits forever: a moderator closing a table (its
running match aborted, with the reason kept), a match abandoned once every person in it has been away
for the whole wait, and the periodic sweep acting on every overdue match as its lost or late task would
have, through the same idempotent services the tasks call."""

from dataclasses import replace
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from observe import metrics
from tables import events
from tables import services as table_services
from tables.models import Seat, Table

from .. import scheduling
from ..engine import get_game
from ..frames import ActionRefused
from ..models import Match
from . import store
from .moves import round_deal_next
from .pace import pace_stand_in
from .seats import away_past_grace, seat_stand_in

SWEEP_SLACK_SECONDS = 1.0
"""How late past its deadline a match must be before the sweep steps in for the fast path's task."""


def _abort(match: Match, reason: str) -> None:
    """Stop a running match for good, recording why. Holding the table's and the match's locks."""
    match.status = Match.Status.ABORTED
    match.abort_reason = reason
    match.finished_at = timezone.now()
    match.version += 1
    match.to_act, match.due, match.due_at = None, "", None
    match.save(update_fields=["status", "abort_reason", "finished_at", "version", "to_act", "due", "due_at"])
    events.table_changed(match.table_id, match.version)


@transaction.atomic(durable=True)
def table_close(*, table_id: int, reason: str) -> Table:
    """Close a table for good (a moderator's action); a running match is recorded as aborted, ``reason``
    (stored untranslated, each player reads it in their own language)."""
    table = table_services.table_lock(table_id)
    if table.status == Table.Status.CLOSED:
        return table
    match = Match.objects.select_for_update().filter(table=table, status=Match.Status.PLAYING).first()
    if match is not None:
        _abort(match, reason)
    table_services.table_mark_closed(table)
    return table


@transaction.atomic(durable=True)
def match_abandon_if_deserted(*, match_id: int) -> bool:
    """Abandon a match whose every person has been stood in for by a bot for the whole wait."""
    try:
        match = store.lock_playing(match_id)
    except ActionRefused:
        return False
    people = Seat.objects.filter(table_id=match.table_id, user__isnull=False)
    cutoff = timezone.now() - timedelta(seconds=settings.ABANDON_AFTER_SECONDS)
    if not people.exists() or people.filter(Q(is_taken_over=False) | Q(taken_over_at__gt=cutoff)).exists():
        return False
    _abort(match, gettext_noop("Abandoned: every player was away for ten minutes."))
    table_services.table_mark_closed(table_services.table_lock(match.table_id))
    return True


# --- The sweep: nothing waits forever -------------------------------------------------------------


@transaction.atomic(durable=True)
def _due_refresh(*, match_id: int, expected_version: int) -> None:
    """Work out again what a match waits for (a match from before due times were kept, or a bot's
    turn whose task was lost) and queue its fast path anew, without a new version."""
    try:
        match = store.lock_playing_at(match_id, expected_version)
    except ActionRefused:
        return
    game = get_game(match.game)
    plan, seat = store.plan_next(match, game, game.state_from_json(match.state))
    match.save(update_fields=["to_act", "due", "due_at", "clock_check_at"])
    if plan.due == Match.Due.BOT:
        plan = replace(plan, countdown=0.0)  # the bot has waited long enough already
    scheduling.after_change(match_id=match.pk, version=match.version, plan=plan, seat=seat)


def sweep() -> int:
    """Act on every running match that is overdue, as its lost or late task would have; how many it
    acted on. Each step is the same idempotent service the task calls, so a sweep racing a task (or
    another sweep) makes one change, never two."""
    now = timezone.now()
    acted = 0
    overdue = list(
        Match.objects.filter(
            status=Match.Status.PLAYING, due_at__lt=now - timedelta(seconds=SWEEP_SLACK_SECONDS)
        )
        .order_by()  # in no particular order: a sort by the default ordering is work for nothing
        .values_list("pk", "version", "due", "to_act")
    )
    metrics.SWEEP_OVERDUE.set(len(overdue))
    for match_id, version, due, to_act in overdue:
        acted += 1
        if due == Match.Due.DEAL:
            round_deal_next(match_id=match_id, expected_version=version)
        elif due == Match.Due.CLOCK and to_act is not None:
            seat_stand_in(match_id=match_id, seat=to_act, expected_version=version)
        elif due == Match.Due.PACE and to_act is not None:
            pace_stand_in(match_id=match_id, seat=to_act, expected_version=version)
        else:
            _due_refresh(match_id=match_id, expected_version=version)
    waiting_on_people = Match.objects.filter(
        status=Match.Status.PLAYING, due__in=[Match.Due.CLOCK, Match.Due.PLAYER], to_act__isnull=False
    ).values_list("pk", "version", "table_id", "to_act", "turn_started_at")
    for match_id, version, table_id, to_act, turn_started_at in waiting_on_people:
        if away_past_grace(table_id, to_act, turn_started_at):
            acted += seat_stand_in(
                match_id=match_id, seat=to_act, expected_version=version, only_if_gone=True
            )
    cutoff = now - timedelta(seconds=settings.ABANDON_AFTER_SECONDS)
    deserted = (
        Match.objects.filter(
            status=Match.Status.PLAYING,
            table__seats__is_taken_over=True,
            table__seats__taken_over_at__lte=cutoff,
        )
        .values_list("pk", flat=True)
        .distinct()
    )
    for match_id in deserted:
        acted += match_abandon_if_deserted(match_id=match_id)
    return acted
