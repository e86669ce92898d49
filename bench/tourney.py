"""What ``manage.py tourneybench`` reads and writes in the database, apart from its crowd's sockets: the
crowd's accounts, the arena it plays, the pairing step timed in this process (its decision, then its
seating as the news of it is heard), and what the tournament's rows say afterwards (who sat where and
when, how long each waited for the next table)."""

import asyncio
import contextlib
import time
from dataclasses import dataclass
from datetime import timedelta
from itertools import pairwise

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone

from gameplay import services as gameplay_services
from gameplay.models import Match
from tables.models import TurnClock
from tournaments import arithmetic, services
from tournaments.events import tournament_group
from tournaments.models import Entry, Kind, Pairing, Tournament
from tournaments.services.arena import waiting_entries
from tournaments.services.entering import LENGTHS
from tournaments.services.shared import busy, held_elsewhere, lock_tournament
from tournaments.services.tables import apart

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
class Decision:
    """The arena pairing's decision on a crowd, as one of its transactions makes it."""

    waiting: int
    tables: int
    reads: float
    """The tournament's and the waiting entries' locks and reads, who is busy elsewhere, the standing
    order and who blocked whom, seconds."""
    arithmetic: float
    """``arithmetic.arena_tables`` and the longest waiting put first, seconds."""


@dataclass(frozen=True)
class Seated:
    """A crowd's seating timed by its news, as the pages hear it: seconds from the pairing's start to the
    ``tournament.seated`` news of the first ``TOURNAMENT_TABLES_AT_ONCE`` tables and of all
    (None: not heard within ``SEATING_WAIT``)."""

    tables: int
    first: float | None
    whole: float | None


SEATING_WAIT = 600.0
"""The longest the timed seating of a crowd is waited for."""


def time_decision(tournament_id: int) -> Decision:
    """The reads and the arithmetic of ``services.arena_pair``'s transaction on whoever waits in the
    tournament (its own pieces, composed as its ``_pair_once`` does), timed apart and rolled back: the
    part of a pairing the arena's size changes, before any table is made."""
    with transaction.atomic():
        started = time.perf_counter()
        tournament = lock_tournament(tournament_id)
        now = timezone.now()
        entries = {
            entry.user_id: entry
            for entry in waiting_entries(tournament, now)
            .select_for_update(of=("self",), skip_locked=True)
            .select_related("user")
        }
        for user_id in held_elsewhere(tournament, entries) | busy(entries):
            del entries[user_id]
        ranks = services.standing_order(tournament)
        blocked = apart(list(entries))
        read = time.perf_counter() - started
        started = time.perf_counter()
        waiting = {
            user_id: arithmetic.Waiting(
                user=user_id,
                rank=ranks[user_id],
                waited=(now - (entry.free_since or entry.joined_at)).total_seconds(),
                last_opponents=frozenset(entry.last_table_mates),
            )
            for user_id, entry in entries.items()
        }
        groups = arithmetic.arena_tables(
            list(waiting.values()), tournament.players_at_table, teams=tournament.teams, apart=blocked
        )
        groups.sort(key=lambda group: -max(waiting[user_id].waited for user_id in group))
        grouped = time.perf_counter() - started
        transaction.set_rollback(True)
    return Decision(waiting=len(entries), tables=len(groups), reads=read, arithmetic=grouped)


async def time_seating(tournament_id: int, tables: int) -> Seated:
    """Start the (upcoming) arena and seat its waiting crowd with ``services.arena_pair`` here, timed by
    the seating news heard on the tournament's group: whichever pairs it (this process, or the worker's
    tick finding it running first), the first tables' news is what their players wait for."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = tournament_group(tournament_id)
    await layer.group_add(group, channel)
    heard: set[int] = set()
    first_batch = min(tables, settings.TOURNAMENT_TABLES_AT_ONCE)
    first = whole = None
    try:
        started = time.perf_counter()
        await sync_to_async(start_now, thread_sensitive=False)(tournament_id)
        pairing = asyncio.ensure_future(
            sync_to_async(services.arena_pair, thread_sensitive=False)(tournament_id=tournament_id)
        )
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SEATING_WAIT):
                while len(heard) < tables:
                    message = await layer.receive(channel)
                    if message["type"] != "tournament.seated":
                        continue
                    heard.update(message["seats"].values())
                    if first is None and len(heard) >= first_batch:
                        first = time.perf_counter() - started
                whole = time.perf_counter() - started
        await pairing
    finally:
        await layer.group_discard(group, channel)
    return Seated(tables=len(heard), first=first, whole=whole)


def start_now(tournament_id: int) -> None:
    Tournament.objects.filter(pk=tournament_id).update(
        status=Tournament.Status.RUNNING, started_at=timezone.now()
    )


def time_pairing(
    *, people: int, seats: int, game: str, options: dict, prefix: str
) -> tuple[Decision, Seated]:
    """The pairing step on ``people`` waiting at once in an arena of their own: the decision timed in
    a rolled-back transaction while the arena is still upcoming (the worker's tick pairs running arenas
    only), then the arena started and its crowd seated. The arena is then ended and its tables closed,
    so no bot takes them over to play on beside the next run."""
    crowd = make_established_people(people, prefix)
    tournament = make_arena(
        name="Pairing step",
        game=game,
        options={**options, "players": seats},
        turn_clock=SHORTEST_CLOCK,
        starts_in=3600,
        seconds=3600,
        most=people,
    )
    now = timezone.now()
    Entry.objects.bulk_create(
        Entry(tournament=tournament, user=user, rating=1500 + index % 400, joined_at=now, seen_at=now)
        for index, user in enumerate(crowd)
    )
    decision = time_decision(tournament.pk)
    seated = asyncio.run(time_seating(tournament.pk, decision.tables))
    Tournament.objects.filter(pk=tournament.pk).update(ends_at=timezone.now())
    for table_id in Pairing.objects.filter(tournament=tournament).values_list("table_id", flat=True):
        gameplay_services.table_close(table_id=table_id, reason="The benchmark's pairing step is timed.")
    return decision, seated


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
