"""A Swiss event's rounds: everyone still in plays each round, at tables made within score groups
(``arithmetic.swiss_round``); the next round starts when the last table of this one ends, or when the
round's time runs out (its unfinished tables are stopped and score as level)."""

from datetime import timedelta

from .. import arithmetic, events
from ..models import Pairing, Score, Tournament
from .shared import busy, held_elsewhere, playing
from .tables import seat_tables


def table_mates(tournament: Tournament) -> dict[int, set[int]]:
    """Everyone each player has been at a table with in this event."""
    mates: dict[int, set[int]] = {}
    for seats in Pairing.objects.filter(tournament=tournament).values_list("seats", flat=True):
        for user_id in seats:
            mates.setdefault(user_id, set()).update(other for other in seats if other != user_id)
    return mates


def round_over(tournament: Tournament) -> bool:
    """Whether every table of the current round has scored."""
    return not Pairing.objects.filter(
        tournament=tournament, round=tournament.round, scored_at__isnull=True
    ).exists()


def round_out_of_time(tournament: Tournament, now) -> bool:
    started = tournament.round_started_at
    return started is not None and now >= started + timedelta(minutes=tournament.minutes)


def swiss_round_start(tournament: Tournament, now) -> dict[int, int]:
    """Make the next round: byes scored at once, tables seated. Call holding the tournament's lock,
    once the last round is over and another is due. Whoever is at a table elsewhere (or about to be,
    another tournament's pairing holding them) misses the round, as the paused do."""
    entries = {
        entry.user_id: entry
        for entry in playing(tournament)
        .filter(paused=False)
        .select_for_update(of=("self",))
        .select_related("user")
    }
    for user_id in held_elsewhere(tournament, entries) | busy(entries):
        del entries[user_id]
    mates = table_mates(tournament)
    players = [
        arithmetic.SwissPlayer(
            user=user_id,
            points=entry.points,
            rating=entry.rating,
            opponents=frozenset(mates.get(user_id, ())),
            byes=entry.byes,
        )
        for user_id, entry in entries.items()
    ]
    made = arithmetic.swiss_round(players, tournament.players_at_table, teams=tournament.teams)
    tournament.round += 1
    tournament.round_started_at = now
    tournament.save(update_fields=["round", "round_started_at"])
    for user_id in made.byes:
        entry = entries[user_id]
        entry.points += arithmetic.BYE_POINTS
        entry.byes += 1
        entry.save(update_fields=["points", "byes"])
        Score.objects.create(
            tournament=tournament, entry=entry, round=tournament.round, points=arithmetic.BYE_POINTS, at=now
        )
    events.tournament_changed(tournament.pk)
    return seat_tables(tournament, made.tables, entries, round=tournament.round)


def unfinished_tables(tournament: Tournament) -> list[int]:
    """The tables of the current round still being played."""
    return list(
        Pairing.objects.filter(
            tournament=tournament, round=tournament.round, scored_at__isnull=True
        ).values_list("table_id", flat=True)
    )
