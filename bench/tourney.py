"""What ``manage.py tourneybench`` reads and writes in the database, apart from its crowd's sockets: the
crowd's accounts, the arena it plays, the pairing step timed in this process, and what the tournament's
rows say afterwards (who sat where and when, how long each waited for the next table)."""

import time
from dataclasses import dataclass
from datetime import timedelta
from itertools import pairwise

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.utils import timezone

from gameplay import services as gameplay_services
from gameplay.models import Match
from tables.models import TurnClock
from tournaments import arithmetic, services
from tournaments.models import Entry, Kind, Pairing, Tournament
from tournaments.services.entering import LENGTHS

SHORTEST_CLOCK = min(value for value in TurnClock.values if value)
"""The shortest turn clock a tournament takes: a stalled seat is played for soonest."""

ESTABLISHED_AGO = timedelta(days=7)
"""How old the crowd's accounts are, with their email confirmed as long: established, so a public
tournament's rated matches take them."""


def make_established_people(count: int, prefix: str) -> list:
    """``count`` new established accounts, in one insert; none can log in with a password."""
    users = get_user_model()
    long_ago = timezone.now() - ESTABLISHED_AGO
    return users.objects.bulk_create(
        users(
            username=f"{prefix}{index}",
            password=make_password(None),
            date_joined=long_ago,
            email_confirmed_at=long_ago,
        )
        for index in range(count)
    )


def make_arena(
    *, name: str, game: str, options: dict, turn_clock: int, starts_in: float, seconds: float, most: int
) -> Tournament:
    """A public arena starting in ``starts_in`` seconds and lasting ``seconds``. Written here rather than
    by the calendar, whose lengths are whole minutes of ten or more: a benchmark's arena (and a test's)
    lasts what the run needs. Its options are checked as a tournament's are."""
    checked = services.shape_check(
        kind=Kind.ARENA,
        game=game,
        players=int(options["players"]),
        options=options,
        turn_clock=turn_clock,
        minutes=LENGTHS[Kind.ARENA][0],
        rounds=0,
    )
    starts_at = timezone.now() + timedelta(seconds=starts_in)
    return Tournament.objects.create(
        name=name,
        kind=Kind.ARENA,
        game=game,
        options=checked,
        turn_clock=turn_clock,
        minutes=max(1, round(seconds / 60)),
        starts_at=starts_at,
        ends_at=starts_at + timedelta(seconds=seconds),
        max_players=most,
    )


@dataclass(frozen=True)
class PairingTimes:
    waiting: int
    tables: int
    whole: float
    """``services.arena_pair``, seconds: the reads, the arithmetic and every table made, one transaction."""
    reads: float
    """The waiting entries and the standing order read, seconds."""
    arithmetic: float
    """``arithmetic.arena_tables`` alone, seconds."""


def time_pairing(*, people: int, seats: int, game: str, options: dict, prefix: str) -> PairingTimes:
    """The pairing step on ``people`` waiting in a running arena of their own: its reads and its
    arithmetic timed apart, then ``services.arena_pair`` whole. The arena is then ended and its tables
    closed, so no bot takes them over to play on beside the next run."""
    crowd = make_established_people(people, prefix)
    tournament = make_arena(
        name="Pairing step",
        game=game,
        options={**options, "players": seats},
        turn_clock=SHORTEST_CLOCK,
        starts_in=0,
        seconds=3600,
        most=people,
    )
    now = timezone.now()
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING, started_at=now)
    # Paused until the step is timed: the worker's tick pairs every running arena, and would seat them.
    Entry.objects.bulk_create(
        Entry(
            tournament=tournament,
            user=user,
            rating=1500 + index % 400,
            joined_at=now,
            seen_at=now,
            paused=True,
        )
        for index, user in enumerate(crowd)
    )
    tournament.refresh_from_db()
    started = time.perf_counter()
    entries = list(Entry.objects.filter(tournament=tournament))
    ranks = services.standing_order(tournament)
    read = time.perf_counter() - started
    waiting = [
        arithmetic.Waiting(
            user=entry.user_id, rank=ranks[entry.user_id], waited=0.0, last_opponents=frozenset()
        )
        for entry in entries
    ]
    started = time.perf_counter()
    arithmetic.arena_tables(waiting, seats, teams=tournament.teams)
    grouped = time.perf_counter() - started
    Entry.objects.filter(tournament=tournament).update(paused=False, seen_at=timezone.now())
    started = time.perf_counter()
    seated = services.arena_pair(tournament_id=tournament.pk)
    whole = time.perf_counter() - started
    Tournament.objects.filter(pk=tournament.pk).update(ends_at=timezone.now())
    for table_id in sorted(set(seated.values())):
        gameplay_services.table_close(table_id=table_id, reason="The benchmark's pairing step is timed.")
    return PairingTimes(
        waiting=len(entries), tables=len(set(seated.values())), whole=whole, reads=read, arithmetic=grouped
    )


@dataclass(frozen=True)
class Seating:
    user: int
    table: int
    made: float
    """When the table was made (Unix seconds)."""
    ended: float | None
    """When its match finished (Unix seconds); None: not finished."""


def seatings(tournament_id: int) -> dict[int, list[Seating]]:
    """Each person's tournament tables, in the order they were made, from the ``Pairing`` rows and
    their matches."""
    pairings = list(
        Pairing.objects.filter(tournament_id=tournament_id).values("table_id", "seats", "made_at")
    )
    finished = dict(
        Match.objects.filter(
            table_id__in=[pairing["table_id"] for pairing in pairings], finished_at__isnull=False
        ).values_list("table_id", "finished_at")
    )
    by_person: dict[int, list[Seating]] = {}
    for pairing in pairings:
        ended = finished.get(pairing["table_id"])
        for user_id in pairing["seats"]:
            by_person.setdefault(user_id, []).append(
                Seating(
                    user=user_id,
                    table=pairing["table_id"],
                    made=pairing["made_at"].timestamp(),
                    ended=ended.timestamp() if ended else None,
                )
            )
    for tables in by_person.values():
        tables.sort(key=lambda seating: seating.made)
    return by_person


def at_two_tables(by_person: dict[int, list[Seating]]) -> list[int]:
    """The people one of whose tables was made before the match at their previous one finished."""
    return [
        user_id
        for user_id, tables in by_person.items()
        if any(earlier.ended is None or later.made < earlier.ended for earlier, later in pairwise(tables))
    ]


def waits_for_next_table(by_person: dict[int, list[Seating]]) -> list[float]:
    """Seconds from a match's end to its player's next table being made, as the database stamped them."""
    return [
        later.made - earlier.ended
        for tables in by_person.values()
        for earlier, later in pairwise(tables)
        if earlier.ended
    ]
