"""The arena's pairing: whoever waits at the tournament page is seated as soon as a table's worth of
people waits, with those nearest in the standing (``arithmetic.arena_tables``)."""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .. import arithmetic
from ..models import Kind, Tournament
from .shared import busy, free_of_tables, held_elsewhere, lock_tournament, playing
from .tables import apart, seat_tables


def standing_order(tournament: Tournament) -> dict[int, int]:
    """Each player's place in the standing now, from 0 (points, then rating): who sits with whom.
    Before anyone has points it is the rating order, as the first round's pairing asks."""
    rows = playing(tournament).order_by("-points", "-rating", "user_id").values_list("user_id", flat=True)
    return {user_id: rank for rank, user_id in enumerate(rows)}


def waiting_entries(tournament: Tournament, now):
    """The entries waiting for a table: in the tournament, not paused, at no table of it, and with
    their page open (heard of within the grace) or their last match just over (the page is on its way
    back)."""
    grace = now - timedelta(seconds=settings.TOURNAMENT_GRACE_SECONDS)
    return (
        playing(tournament)
        .filter(free_of_tables(), paused=False)
        .filter(Q(seen_at__gte=grace) | Q(free_since__gte=grace))
    )


def arena_pair(*, tournament_id: int) -> dict[int, int]:
    """Seat every full table the waiting players make. Each transaction seats at most
    ``TOURNAMENT_TABLES_AT_ONCE`` tables (the longest waiting first), then the pairing runs
    again for the rest: an arena's start seats its first tables within a second, whatever the crowd,
    and no transaction holds the players' rows for long. Who was sent where (person → table)."""
    sent: dict[int, int] = {}
    while True:
        seated, more = _pair_once(tournament_id)
        sent.update(seated)
        if not more:
            return sent


@transaction.atomic(durable=True)
def _pair_once(tournament_id: int) -> tuple[dict[int, int], bool]:
    """One transaction of the pairing: a pairing that fails (a killed worker) seats nobody, and two
    at once never seat anyone twice (the second skips the tournament). Who was sent where, and whether
    tables are left to seat."""
    tournament = lock_tournament(tournament_id, skip_locked=True)
    now = timezone.now()
    if (
        tournament is None
        or tournament.kind != Kind.ARENA
        or tournament.status != Tournament.Status.RUNNING
        or now >= tournament.ends_at
    ):
        return {}, False
    entries = {
        entry.user_id: entry
        for entry in waiting_entries(tournament, now)
        .select_for_update(of=("self",), skip_locked=True)
        .select_related("user")
    }
    # At a table elsewhere meanwhile (the lobby, another tournament), or about to be: not waiting.
    for user_id in held_elsewhere(tournament, entries) | busy(entries):
        del entries[user_id]
    size = tournament.players_at_table
    if len(entries) < size:
        return {}, False
    ranks = standing_order(tournament)
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
        list(waiting.values()), size, teams=tournament.teams, apart=apart(list(entries))
    )
    groups.sort(key=lambda group: -max(waiting[user_id].waited for user_id in group))
    now_seated = groups[: settings.TOURNAMENT_TABLES_AT_ONCE]
    return seat_tables(tournament, now_seated, entries), len(groups) > len(now_seated)
