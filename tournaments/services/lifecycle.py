"""A tournament's life: made by the calendar ahead of its start, started (or cancelled for want of
players) when its time comes, moved on round by round, and finished with its podium and trophies.
Celery beat's tick runs it every second; each step is idempotent, reads the database's state and the
clock, and so survives a lost tick, a killed worker, or a server restarted mid-round."""

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial

from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_noop

from gameplay import services as gameplay_services
from gameplay.models import Match
from social import services as social_services
from social.models import Notice
from tables.models import Table

from .. import arithmetic, events
from ..models import Entry, Kind, Pairing, Schedule, Tournament, Trophy
from ..standing import ranked
from .arena import arena_pair
from .scoring import pairing_score
from .shared import lock_tournament, playing
from .swiss import round_out_of_time, round_over, swiss_round_start, unfinished_tables

logger = logging.getLogger(__name__)

TOO_FEW = gettext_noop("Too few players joined.")
ROUND_TIME_UP = gettext_noop("The round's time ran out.")


def schedule_next_start(schedule: Schedule, now: datetime) -> datetime:
    """The line's first start not past at ``now``."""
    every = timedelta(minutes=schedule.every_minutes)
    if schedule.first_start >= now:
        return schedule.first_start
    return schedule.first_start + every * -(-(now - schedule.first_start) // every)


def calendar_make(*, now=None) -> int:
    """Make every calendar tournament that starts within its line's ``ahead_minutes`` and is not made
    yet (one per line and start, whichever beat asks); how many it made. A line that repeats at no
    interval (written outside the admin, which refuses it) makes nothing."""
    now = now or timezone.now()
    made = 0
    for line in Schedule.objects.filter(active=True, every_minutes__gt=0):
        start = schedule_next_start(line, now)
        while start <= now + timedelta(minutes=line.ahead_minutes):
            made += _make_from(line, start)
            start += timedelta(minutes=line.every_minutes)
    return made


def _make_from(line: Schedule, starts_at) -> int:
    with transaction.atomic(durable=True):
        _tournament, created = Tournament.objects.get_or_create(
            schedule=line,
            starts_at=starts_at,
            defaults={
                "name": line.name,
                "kind": line.kind,
                "game": line.game,
                "options": line.options,
                "turn_clock": line.turn_clock,
                "minutes": line.minutes,
                "rounds": line.rounds,
                "min_rated_matches": line.min_rated_matches,
                "rating_min": line.rating_min,
                "rating_max": line.rating_max,
                "max_players": line.max_players,
                "ends_at": starts_at + timedelta(minutes=line.minutes) if line.kind == Kind.ARENA else None,
            },
        )
    return int(created)


def tournament_url(tournament: Tournament) -> str:
    return reverse("tournaments:detail", args=[tournament.pk])


def _tell(tournament: Tournament, user_ids, kind: str) -> None:
    """A site notice about ``tournament`` to each of ``user_ids``, on whatever page they have open."""
    link = tournament_url(tournament)
    for user_id in user_ids:
        social_services.notify(
            recipient_id=user_id, kind=kind, sender=None, subject=tournament.name, link=link
        )


def _start(tournament_id: int) -> None:
    """Start a tournament whose time has come: cancelled with a notice if too few joined; otherwise its
    players leave the pool and hear it starts, and a Swiss event makes its first round."""
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        now = timezone.now()
        if (
            tournament is None
            or tournament.status != Tournament.Status.UPCOMING
            or now < tournament.starts_at
        ):
            return
        user_ids = list(playing(tournament).values_list("user_id", flat=True))
        if len(user_ids) < tournament.players_at_table:
            _cancel(tournament, TOO_FEW, now)
            return
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, now
        tournament.save(update_fields=["status", "started_at"])
        social_services.pool_leave_within(user_ids=user_ids)
        _tell(tournament, user_ids, Notice.Kind.TOURNAMENT_STARTING)
        if tournament.kind == Kind.SWISS:
            swiss_round_start(tournament, now)
        events.tournament_changed(tournament.pk)
    if tournament.kind == Kind.ARENA:
        arena_pair(tournament_id=tournament.pk)


def _cancel(tournament: Tournament, reason: str, now) -> None:
    """Call holding the tournament's lock. Its tables play on and score nothing."""
    tournament.status, tournament.finished_at = Tournament.Status.CANCELLED, now
    tournament.cancelled_because = reason
    tournament.save(update_fields=["status", "finished_at", "cancelled_because"])
    _tell(tournament, playing(tournament).values_list("user_id", flat=True), Notice.Kind.TOURNAMENT_CANCELLED)
    events.tournament_changed(tournament.pk)


def _finish(tournament: Tournament, now) -> None:
    """The end: the standing kept (each player's place), the podium's trophies given. Call holding the
    tournament's lock. Tables still playing finish but score nothing."""
    tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
    tournament.save(update_fields=["status", "finished_at"])
    places_kept(tournament, now)
    events.tournament_changed(tournament.pk)


def places_kept(tournament: Tournament, now) -> None:
    """Keep each player's place in the final standing and give the podium its trophies (again, after a
    disqualification). Call holding the tournament's lock."""
    standing = ranked(tournament)
    places = {row.user: row.rank for row in standing}
    entries = list(Entry.objects.select_for_update().filter(tournament=tournament))
    for entry in entries:
        entry.rank = places.get(entry.user_id)
    Entry.objects.bulk_update(entries, ["rank"])
    Trophy.objects.filter(tournament=tournament).delete()
    Trophy.objects.bulk_create(
        Trophy(user_id=row.user, tournament=tournament, place=row.rank, points=row.points, won_at=now)
        for row in arithmetic.podium(standing)
    )


def _arena_move_on(tournament_id: int) -> None:
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        now = timezone.now()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return
        if now >= tournament.ends_at:
            _finish(tournament, now)
            return
    arena_pair(tournament_id=tournament_id)


def swiss_move_on(*, tournament_id: int) -> None:
    """A Swiss event whose round is over starts the next (or ends after the last); a round out of time
    has its unfinished tables stopped first (they score as level, by the tick that follows)."""
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        now = timezone.now()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return
        if round_over(tournament):
            if tournament.round >= tournament.rounds:
                _finish(tournament, now)
            else:
                swiss_round_start(tournament, now)
            return
        late = unfinished_tables(tournament) if round_out_of_time(tournament, now) else []
    for table_id in late:
        gameplay_services.table_close(table_id=table_id, reason=ROUND_TIME_UP)


def tick() -> None:
    """Celery beat's, every ``TOURNAMENT_TICK_SECONDS``: start what is due, score what was missed, pair
    the arenas, move the Swiss events on, end what is over. Each tournament's step on its own: one
    that fails (its options a game no longer takes) is logged and tried again next tick, and never
    keeps the others from theirs."""
    now = timezone.now()
    for tournament_id in Tournament.objects.filter(
        status=Tournament.Status.UPCOMING, starts_at__lte=now
    ).values_list("pk", flat=True):
        _alone(f"tournament {tournament_id}'s start", partial(_start, tournament_id))
    scores_catch_up()
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", "kind")
    for tournament_id, kind in list(running):
        if kind == Kind.ARENA:
            _alone(f"arena {tournament_id}", partial(_arena_move_on, tournament_id))
        else:
            _alone(f"Swiss event {tournament_id}", partial(swiss_move_on, tournament_id=tournament_id))


def _alone[T](what: str, step: Callable[[], T]) -> T | None:
    """Run one tournament's (or one table's) step of the tick; a failure is logged, not raised."""
    try:
        return step()
    except Exception:
        logger.exception("Tournaments' tick: %s failed; the next tick tries again.", what)
        return None


def table_scored_move_on(*, pairing_id: int) -> bool:
    """Score a tournament table whose match is over; then an arena seats whoever waits, and a Swiss
    event moves on if that was the round's last table. Whether it scored now."""
    if not pairing_score(pairing_id=pairing_id):
        return False
    tournament_id, kind = (
        Pairing.objects.filter(pk=pairing_id).values_list("tournament_id", "tournament__kind").get()
    )
    if kind == Kind.ARENA:
        arena_pair(tournament_id=tournament_id)
    else:
        swiss_move_on(tournament_id=tournament_id)
    return True


def match_decided(sender, *, match_id: int, **kwargs) -> None:
    """``gameplay.signals.match_finished``'s receiver (connected in ``apps``): score the tournament
    table whose match this was, at once. Should this fail, the tick scores it within a second or two."""
    table_id = Match.objects.filter(pk=match_id).values_list("table_id", flat=True).first()
    pairing_id = Pairing.objects.filter(table_id=table_id).values_list("pk", flat=True).first()
    if pairing_id is None:
        return
    try:
        table_scored_move_on(pairing_id=pairing_id)
    except Exception:
        logger.exception("Match %s: its tournament table was not scored; the tick will.", match_id)


def scores_catch_up() -> int:
    """Score every tournament table whose match is over but missed its score; how many scored."""
    over = Pairing.objects.filter(scored_at__isnull=True).exclude(table__status__in=Table.NOT_OVER)
    return sum(
        bool(_alone(f"table {pairing_id}'s score", partial(table_scored_move_on, pairing_id=pairing_id)))
        for pairing_id in list(over.values_list("pk", flat=True))
    )
