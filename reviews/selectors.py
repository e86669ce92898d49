"""Reading reviews: a person's own seat's, the accuracies for a list of their matches, and a review's
marks by move for the replay. A person reads their own seats' reviews only; moderators read any."""

from collections.abc import Iterable

from gameplay.games.review import ReviewRow, ReviewSummary, row, summarize
from gameplay.models import Match, Participant

from .models import Review


def seat_of(match: Match, user) -> int | None:
    if not user.is_authenticated:
        return None
    return Participant.objects.filter(match=match, user=user).values_list("seat", flat=True).first()


def own_review(match: Match, user) -> Review | None:
    """The review of the seat ``user`` held in ``match``, asked for or not yet (None)."""
    return Review.objects.filter(match=match, user=user).first() if user.is_authenticated else None


def summary(review: Review) -> ReviewSummary:
    return summarize(review.match.game, review.decisions, review.accuracy)


def accuracies(user, match_ids: Iterable[int]) -> dict[int, float]:
    """The accuracy of ``user``'s reviewed seat in each of ``match_ids`` that has one, by match."""
    return dict(
        Review.objects.filter(
            user=user, match_id__in=list(match_ids), status=Review.Status.DONE, accuracy__isnull=False
        ).values_list("match_id", "accuracy")
    )


def mark_at(review: Review | None, number: int) -> ReviewRow | None:
    """The finished review's judgement of move ``number``, for the replay to show beside it; None when
    that move was not judged (another seat's, a stand-in's, a forced one) or there is no review."""
    if review is None or review.status != Review.Status.DONE:
        return None
    decision = next((each for each in review.decisions if each["number"] == number), None)
    return None if decision is None else row(review.match.game, decision)


def panel_context(match: Match, user) -> dict:
    """What the match page's review panel shows ``user``, a player of ``match``: the review of their
    seat (its progress while it is judged, its marks once done), or whether they may ask for one."""
    review = own_review(match, user)
    done = review is not None and review.status == Review.Status.DONE
    return {
        "review_match": match,
        "review": review,
        "review_summary": summary(review) if done else None,
        "review_askable": review is None and match.status == Match.Status.FINISHED,
    }
