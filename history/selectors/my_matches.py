"""My matches: every match a player took part in, filtered by game and by how it came out for them,
each row as that player sees it (their opponents, the sides' totals, what it did to their rating)."""

from dataclasses import dataclass
from datetime import timedelta
from functools import reduce
from operator import or_

from django.db.models import BooleanField, Case, OuterRef, Q, QuerySet, Subquery, Value, When

from gameplay.games import presenter
from gameplay.models import Match, Participant
from gameplay.selectors import participant_names
from ratings import selectors as rating_selectors
from ratings.models import RatingChange
from reviews import selectors as review_selectors

from .participants import ABORTED, FINISHED, duration, outcome_label, outcome_of, took_part, with_participants

MAX_SEATS = 4
OUTCOMES = ("won", "lost", "no_winner", "abandoned")
"""The results "My matches" filters by, as the player sees their own match."""


@dataclass
class MatchRow:
    """One line of a match list, seen by one player."""

    match: Match
    outcome: str
    outcome_label: str
    opponents: list[str]
    bot_accounts: frozenset[str]
    """Those of ``opponents`` who are bot accounts, marked as such beside their names."""
    scores: list[tuple[str, int]]
    """Each side and its final (or current) total; games won for a classic match played to games."""
    duration: timedelta | None
    rating: RatingChange | None = None
    """What the match did to the player's rating, when it was rated."""
    accuracy: float | None = None
    """The accuracy of the player's decisions, when the match was reviewed."""


def _among(field_path: str) -> Q:
    """The annotated ``my_seat`` is one of the seats in the JSON list ``field_path`` (one seat, or a team)."""
    return reduce(
        or_,
        (
            Q(my_seat=seat) & (Q(**{f"{field_path}__0": seat}) | Q(**{f"{field_path}__1": seat}))
            for seat in range(MAX_SEATS)
        ),
    )


def _annotate_player(matches: QuerySet[Match], user) -> QuerySet[Match]:
    """Each match with ``my_seat`` (the seat ``user`` held) and ``i_won``."""
    my_seat = Participant.objects.filter(match=OuterRef("pk"), user=user).order_by("from_move").values("seat")
    return matches.annotate(my_seat=Subquery(my_seat[:1])).annotate(
        i_won=Case(
            When(Q(status=FINISHED) & _among("result__winners"), then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        )
    )


_OUTCOME_FILTERS = {
    "won": Q(i_won=True),
    "lost": Q(status=FINISHED, i_won=False) & ~Q(result__winners=[]),
    "no_winner": Q(status=FINISHED, result__winners=[]),
    "abandoned": Q(status=ABORTED),
}


def matches_of(*, user, game: str | None = None, outcome: str | None = None) -> QuerySet[Match]:
    """Every match ``user`` took part in, newest first, of ``game`` and with ``outcome`` for them when given.

    A player replaced mid-match still finds it here, with the seat they held."""
    matches = _annotate_player(Match.objects.filter(took_part(user)), user)
    if game:
        matches = matches.filter(game=game)
    if outcome:
        matches = matches.filter(_OUTCOME_FILTERS[outcome])
    return with_participants(matches).order_by("-started_at", "-pk")


def match_rows(matches, *, user) -> list[MatchRow]:
    """Rows for matches from ``matches_of``, as ``user`` (the player it was asked for) sees them."""
    matches = list(matches)
    changes = rating_selectors.changes_of(user=user, match_ids=[match.pk for match in matches])
    accuracies = review_selectors.accuracies(user, [match.pk for match in matches])
    rows = []
    for match in matches:
        names = participant_names(match)
        outcome = outcome_of(match, match.my_seat)
        show = presenter(match.game)
        sides = show.sides(names, match.options)
        totals = show.standings(match.options, match.state["totals"], match.state.get("games_won"))
        rows.append(
            MatchRow(
                match=match,
                outcome=outcome,
                outcome_label=outcome_label(outcome),
                opponents=[name for seat, name in enumerate(names) if seat != match.my_seat],
                bot_accounts=frozenset(
                    participant.name
                    for participant in match.participants.all()
                    if participant.user is not None and participant.user.is_bot_account and participant.name
                ),
                scores=list(zip(sides, totals, strict=True)),
                duration=duration(match),
                rating=changes.get(match.pk),
                accuracy=accuracies.get(match.pk),
            )
        )
    return rows
