"""Which matches move the ratings: decided online at a rated table, every seat started by a person.
One definition for the live update, the catch-up, the rebuild and the pages.

Whether a table is rated is not this app's to decide: ``tables.rated`` decides it (who sits there,
their accounts, the clock, how often the same people met today) and stores it on the table when its
match starts (``Table.is_rated``), the same answer its label showed. Reading that stored answer, and
not deciding again, keeps a match's fate fixed: an account closed or a day passed since changes
nothing, in the live update or in a rebuild years later."""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Exists, OuterRef

from gameplay.models import Match, Participant

from .standing import Standing, standing


@dataclass(frozen=True)
class RatedSeats:
    """A match that moves the ratings: who started each seat, and the result's standing."""

    match_id: int
    game: str
    finished_at: datetime
    people: dict[int, int]
    standing: Standing


def rated_seats(match: Match, first_holders: dict[int, int | None]) -> RatedSeats | None:
    """The match's people and standing when it moves the ratings: decided online at a table
    ``tables.rated`` found rated at the start, every seat started by a person (``first_holders``:
    each seat's first holder, None for a bot). None otherwise: bots, practice and casual tables never
    move a rating."""
    if match.status != Match.Status.FINISHED or match.practice or not match.table.is_rated:
        return None
    return decided_seats(match.pk, match.game, match.options, match.result, match.finished_at, first_holders)


def decided_seats(
    match_id: int,
    game: str,
    options: dict,
    result: dict,
    finished_at: datetime,
    holders: dict[int, int | None],
) -> RatedSeats | None:
    """``rated_seats`` for a decided match at a rated table, read as plain values (the rebuild reads
    a hundred thousand): None unless a person started every seat."""
    if len(holders) != options["players"] or any(user_id is None for user_id in holders.values()):
        return None
    return RatedSeats(
        match_id=match_id,
        game=game,
        finished_at=finished_at,
        people=dict(holders),
        standing=standing(game, options, result),
    )


def first_holders(match_ids: list[int]) -> dict[int, dict[int, int | None]]:
    """For each match, each seat's first holder (the person who started it; None for a bot)."""
    holders: dict[int, dict[int, int | None]] = defaultdict(dict)
    # A person replaced before the first move shares ``from_move`` 0 with the bot after them: the
    # seat's first row is the one made first.
    rows = (
        Participant.objects.filter(match_id__in=match_ids, from_move=0)
        .order_by("-pk")
        .values_list("match_id", "seat", "user_id")
    )
    for match_id, seat, user_id in rows:
        holders[match_id][seat] = user_id
    return holders


def bot_started() -> Exists:
    """For a query of matches: a bot started one of its seats (its seat's first row is a bot's)."""
    before = Participant.objects.filter(match=OuterRef("match"), seat=OuterRef("seat"), pk__lt=OuterRef("pk"))
    bots = Participant.objects.filter(match=OuterRef("pk"), from_move=0, user__isnull=True)
    return Exists(bots.exclude(Exists(before)))
