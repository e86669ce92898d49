"""A tournament table's match scored: each side's place is worth its points (``arithmetic``), wins in a
row count double in an arena, and the players are free for their next table.

A table is scored once (its row locked, ``scored_at`` set) and a person once per table (one ``Score``),
so the fast path and the tick's catch-up (``lifecycle``) never count a result twice."""

from django.db import transaction
from django.utils import timezone

from gameplay.models import Match
from ratings.standing import standing
from tables.models import Table

from .. import arithmetic, events
from ..models import Entry, Kind, Pairing, Score, Tournament
from .shared import lock_tournament


def _counts(tournament: Tournament, pairing: Pairing, now) -> bool:
    """Whether a table ending now scores: the tournament still runs (an arena before its end; a Swiss
    event in that table's round)."""
    if tournament.status != Tournament.Status.RUNNING:
        return False
    if tournament.kind == Kind.ARENA:
        return now < tournament.ends_at
    return pairing.round == tournament.round


def _sides_and_places(tournament: Tournament, pairing: Pairing) -> tuple[list[list[int]], list[int]] | None:
    """The table's sides (seats) and their places: from the decided match, or every side level for a
    Swiss table stopped when its round's time ran out. None: nothing to score (an arena table closed
    by a moderator)."""
    match = Match.objects.filter(table_id=pairing.table_id).order_by("-pk").first()
    if match is not None and match.status == Match.Status.FINISHED:
        result = standing(tournament.game, tournament.options, match.result)
        return result.sides, result.places
    if tournament.kind == Kind.SWISS:
        size = tournament.players_at_table
        sides = [[0, 2], [1, 3]] if tournament.teams else [[seat] for seat in range(size)]
        return sides, [1] * len(sides)
    return None


def pairing_score(*, pairing_id: int) -> bool:
    """Score one tournament table whose match is over; True if it scored now (False: scored before,
    or not over yet)."""
    tournament_id = Pairing.objects.filter(pk=pairing_id).values_list("tournament_id", flat=True).first()
    if tournament_id is None:
        return False
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        pairing = Pairing.objects.select_for_update().filter(pk=pairing_id, scored_at__isnull=True).first()
        if pairing is None or Table.objects.filter(pk=pairing.table_id, status__in=Table.NOT_OVER).exists():
            return False
        _score(tournament, pairing, timezone.now())
    return True


def _score(tournament: Tournament, pairing: Pairing, now) -> None:
    counted = _counts(tournament, pairing, now)
    entries = {
        entry.user_id: entry
        for entry in Entry.objects.select_for_update().filter(
            tournament=tournament, user_id__in=pairing.seats
        )
    }
    decided = _sides_and_places(tournament, pairing)
    if decided is not None:
        sides, places = decided
        base = arithmetic.place_points(places)
        rows = []
        for side, seats in enumerate(sides):
            won = arithmetic.won(places, side)
            for seat in seats:
                entry = entries.get(pairing.seats[seat])
                if entry is None:
                    continue
                rows.append(
                    _scored(tournament, pairing, entry, side, places[side], base[side], won, counted, now)
                )
        Score.objects.bulk_create(rows)
    for entry in entries.values():
        if entry.table_id == pairing.table_id:
            entry.table = None
        entry.free_since = now
    Entry.objects.bulk_update(
        list(entries.values()), ["points", "matches", "wins", "streak", "table", "free_since"]
    )
    pairing.scored_at, pairing.counted = now, counted and decided is not None
    pairing.save(update_fields=["scored_at", "counted"])
    events.tournament_changed(tournament.pk)
    events.table_scored(pairing.table_id, tournament.pk)


def _scored(
    tournament: Tournament,
    pairing: Pairing,
    entry: Entry,
    side: int,
    place: int,
    base: int,
    won: bool,
    counted: bool,
    now,
) -> Score:
    """One person's score at the table, added to their entry when it counts (the disqualified score
    nothing). Only an arena has streaks."""
    counted = counted and entry.disqualified_at is None
    if tournament.kind == Kind.ARENA:
        scored = arithmetic.score(base, won=won, streak=entry.streak)
    else:
        scored = arithmetic.Scored(points=base, streak=0, doubled=False)
    if counted:
        entry.points += scored.points
        entry.matches += 1
        entry.wins += int(won)
        entry.streak = scored.streak
    return Score(
        tournament=tournament,
        pairing=pairing,
        entry=entry,
        round=pairing.round,
        side=side,
        place=place,
        points=scored.points if counted else 0,
        won=won,
        doubled=scored.doubled and counted,
        counted=counted,
        at=now,
    )
