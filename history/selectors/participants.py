"""Who sat where, and who may look. A match's participants say who held each seat and from which move
to which; the table's seats say only who sits there now, which a moderator may have changed. How a
match came out for a seat is read here too."""

from datetime import timedelta

from django.db.models import Exists, OuterRef, Prefetch, QuerySet
from django.utils.translation import gettext as _

from gameplay.models import Match, Participant

PLAYING, FINISHED, ABORTED = Match.Status.PLAYING, Match.Status.FINISHED, Match.Status.ABORTED


def with_participants(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.select_related("table").prefetch_related(
        Prefetch("participants", queryset=Participant.objects.select_related("user"))
    )


def match_detail(*, match_id: int) -> Match | None:
    """A match with its table and participants."""
    return with_participants(Match.objects.filter(pk=match_id)).first()


def seat_holders(match: Match) -> list[list[Participant]]:
    """Who held each seat, seat by seat, in the order they held it (several after a replacement)."""
    by_seat: dict[int, list[Participant]] = {}
    for participant in match.participants.all():  # ordered by seat, then from_move
        by_seat.setdefault(participant.seat, []).append(participant)
    return [by_seat[seat] for seat in sorted(by_seat)]


def holder_at(holders: list[Participant], move: int) -> Participant:
    """Who held the seat for move number ``move`` (counted from 1): from_move < move <= until_move."""
    return next(
        (p for p in holders if p.from_move < move and (p.until_move is None or move <= p.until_move)),
        holders[-1],
    )


def seat_of(match: Match, user) -> int | None:
    """The seat ``user`` held in ``match`` (for however long), or None for a spectator."""
    if not user.is_authenticated:
        return None
    return next((p.seat for p in match.participants.all() if p.user_id == user.pk), None)


def can_view(*, match: Match, user) -> bool:
    """Its players see a match; anyone logged in sees a public table's; moderators see all."""
    if not user.is_authenticated:
        return False
    return user.is_staff or not match.table.is_private or seat_of(match, user) is not None


def took_part(user) -> Exists:
    """The match (the outer query's row) is one ``user`` held a seat in, for however long."""
    return Exists(Participant.objects.filter(match=OuterRef("pk"), user=user))


def outcome_of(match: Match, seat: int | None) -> str:
    """How the match came out for ``seat``: won, lost, no_winner, abandoned, or playing."""
    if match.status == ABORTED:
        return "abandoned"
    if match.status == PLAYING:
        return "playing"
    winners = match.result["winners"]
    if not winners:
        return "no_winner"
    return "won" if seat in winners else "lost"


def outcome_label(outcome: str) -> str:
    return {
        "won": _("won"),
        "lost": _("lost"),
        "no_winner": _("no winner"),
        "abandoned": _("abandoned"),
        "playing": _("still playing"),
    }[outcome]


def duration(match: Match) -> timedelta | None:
    return match.finished_at - match.started_at if match.finished_at else None
