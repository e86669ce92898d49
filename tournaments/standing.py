"""A tournament's standing read from its rows and ordered by the arithmetic: what the pages show and
what the end of a tournament keeps. Reads only."""

from .arithmetic import Ranked, Standee, TableResult, standings
from .models import Entry, Score, Tournament


def table_results(tournament: Tournament) -> list[TableResult]:
    """Every counted table of the tournament as sides and places (byes are not tables)."""
    by_pairing: dict[int, dict[int, tuple[int, list[int]]]] = {}
    rows = Score.objects.filter(tournament=tournament, counted=True, pairing__isnull=False).values_list(
        "pairing_id", "side", "place", "entry__user_id"
    )
    for pairing_id, side, place, user_id in rows:
        sides = by_pairing.setdefault(pairing_id, {})
        sides.setdefault(side, (place, []))[1].append(user_id)
    results = []
    for sides in by_pairing.values():
        ordered = [sides[side] for side in sorted(sides)]
        results.append(
            TableResult(sides=[users for _place, users in ordered], places=[p for p, _ in ordered])
        )
    return results


def ranked(tournament: Tournament) -> list[Ranked]:
    """The standing now: points, then the tie-breaks (``arithmetic.standings``); the disqualified are
    left out."""
    entries = Entry.objects.filter(tournament=tournament, disqualified_at__isnull=True).values_list(
        "user_id", "points", "wins", "matches", "rating"
    )
    standees = [
        Standee(user=user_id, points=points, wins=wins, matches=matches, rating=rating)
        for user_id, points, wins, matches, rating in entries
    ]
    return standings(standees, table_results(tournament))
