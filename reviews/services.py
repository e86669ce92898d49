"""The one writer of reviews: asked for by a person (their own seat) or a moderator (any seat, never in
a match of their own), each spending a daily budget before any work; judged by a worker; resumed when
a worker was lost halfway."""

import random
import time
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import limits
from bots import review as judging
from gameplay.engine import IllegalAction
from gameplay.models import Match, Move, Participant

from . import events
from .models import Review

REQUEUE_SECONDS = 900
"""A review still waiting for a worker after this long is queued again (its message was lost with a
broker that went away); a second message for it finds it taken or done and does nothing."""
PROGRESS_SECONDS = 1.0
"""How often a run writes its progress for the page to show."""


class ReviewError(Exception):
    """Why a review cannot be had, in the reader's language."""


def _finished_match(match_id: int) -> Match:
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise ReviewError(_("There is no such match."))
    if match.status != Match.Status.FINISHED:
        raise ReviewError(_("Only a finished match can be reviewed."))
    return match


def _spend(key: str, user_id: int, address: str | None, count: int, address_count: int) -> None:
    if shortfall := limits.spend_person_and_address(
        key,
        user_id,
        address,
        count=count,
        address_count=address_count,
        seconds=86400,
        refusal=_("You have asked for as many reviews as a day allows: try again tomorrow."),
        address_refusal=_("Many reviews were asked for from your network today: try again tomorrow."),
    ):
        raise ReviewError(shortfall.said)


def _create(match: Match, seat: int, user_id: int, requested_by_id: int) -> Review:
    """The seat's review, queued once its transaction commits; a second request (a double click, a
    second tab, a moderator's) finds the first."""
    try:
        with transaction.atomic():
            review = Review.objects.create(
                match=match,
                seat=seat,
                user_id=user_id,
                requested_by_id=requested_by_id,
                seed=random.getrandbits(63),
                method=judging.FORMAT,
                heartbeat_at=timezone.now(),
            )
            events.run_on_commit(review.pk)
    except IntegrityError:
        return Review.objects.get(match=match, seat=seat)
    return review


def request_review(*, user, match_id: int, address: str | None = None) -> Review:
    """The review of ``user``'s own seat in a finished match: the one there is, or a new one queued
    after spending the person's and the address's daily budgets (a review already asked for costs
    nothing)."""
    match = _finished_match(match_id)
    seat = Participant.objects.filter(match=match, user=user).values_list("seat", flat=True).first()
    if seat is None:
        raise ReviewError(_("Only the players of a match can ask for its review."))
    existing = Review.objects.filter(match=match, seat=seat).first()
    if existing is not None:
        return existing
    _spend("reviews", user.pk, address, settings.REVIEWS_PER_DAY, settings.REVIEWS_PER_ADDRESS_PER_DAY)
    return _create(match, seat, user.pk, user.pk)


def request_as_moderator(*, moderator, match_id: int, seat: int) -> Review:
    """A fair-play review of any person's seat, asked for by a moderator who did not play in the match."""
    if not (moderator.is_staff and moderator.has_perm("reviews.review_seat")):
        raise ReviewError(_("Only moderators may review another player's seat."))
    match = _finished_match(match_id)
    holders = list(Participant.objects.filter(match=match).values_list("seat", "user_id"))
    if any(user_id == moderator.pk for _seat, user_id in holders):
        raise ReviewError(_("A moderator does not review a match they played in."))
    person = next((user_id for held, user_id in holders if held == seat and user_id is not None), None)
    if person is None:
        raise ReviewError(_("No person held that seat: a bot's moves are not reviewed."))
    existing = Review.objects.filter(match=match, seat=seat).first()
    if existing is not None:
        return existing
    _spend(
        "reviews-moderation",
        moderator.pk,
        None,
        settings.REVIEWS_MODERATION_PER_DAY,
        settings.REVIEWS_MODERATION_PER_DAY,
    )
    return _create(match, seat, person, moderator.pk)


def _claim(review_id: int) -> Review | None:
    """The review, now marked as being judged by this run; None when there is nothing to do: it is
    gone, done, or another run is judging it (its progress is fresh)."""
    now = timezone.now()
    with transaction.atomic():
        review = (
            Review.objects.select_for_update(of=("self",))
            .select_related("match")
            .filter(pk=review_id)
            .first()
        )
        if review is None or review.status == Review.Status.DONE:
            return None
        lease = timedelta(seconds=settings.REVIEW_LEASE_SECONDS)
        fresh = review.heartbeat_at and now - review.heartbeat_at < lease
        if review.status == Review.Status.RUNNING and fresh:
            return None
        review.status, review.heartbeat_at, review.done, review.failure = Review.Status.RUNNING, now, 0, ""
        review.save(update_fields=["status", "heartbeat_at", "done", "failure"])
    return review


def _judged_moves(review: Review) -> tuple[list[dict], Callable[[int], bool]]:
    """Every action of the match in order, and which move numbers are the reviewed person's own: made
    by them (not a bot standing in) while they held the seat."""
    moves = list(
        Move.objects.filter(match=review.match).order_by("seq").values_list("seq", "action", "actor")
    )
    held = Participant.objects.filter(match=review.match, seat=review.seat, user_id=review.user_id)
    spans = list(held.values_list("from_move", "until_move"))
    own = {
        seq
        for seq, _action, actor in moves
        if actor == Move.Actor.PLAYER and any(a < seq and (b is None or seq <= b) for a, b in spans)
    }
    return [action for _seq, action, _actor in moves], own.__contains__


def _progress(review_id: int) -> Callable[[int, int], None]:
    written = [0.0]

    def told(done: int, total: int) -> None:
        now = time.monotonic()
        if now - written[0] >= PROGRESS_SECONDS or done == total:
            written[0] = now
            Review.objects.filter(pk=review_id, status=Review.Status.RUNNING).update(
                done=done, total=total, heartbeat_at=timezone.now()
            )

    return told


def run(review_id: int) -> None:
    """Judge the review's decisions (the worker's task): a run that finds it done, gone or in another
    run's hands does nothing, so a task delivered twice judges once; judging is seeded by the review,
    so a run started again after a lost worker writes the same marks."""
    review = _claim(review_id)
    if review is None:
        return
    match = review.match
    actions, own = _judged_moves(review)
    try:
        decisions = judging.review(
            match.game,
            match.options,
            match.seed,
            actions,
            seats=[review.seat],
            judged=own,
            review_seed=review.seed,
            positions=settings.REVIEW_POSITIONS,
            progress=_progress(review.pk),
        )
    except (IllegalAction, ValueError, KeyError, TypeError):
        Review.objects.filter(pk=review.pk).update(
            status=Review.Status.FAILED,
            failure=_("The moves on record do not replay."),
            finished_at=timezone.now(),
        )
        return
    losses = [decision.loss for decision in decisions]
    Review.objects.filter(pk=review.pk, status=Review.Status.RUNNING).update(
        status=Review.Status.DONE,
        decisions=[decision.to_json() for decision in decisions],
        done=len(decisions),
        total=len(decisions),
        accuracy=judging.match_accuracy(match.game, losses),
        best_share=(sum(d.chosen == d.best for d in decisions) / len(decisions)) if decisions else None,
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )


def resume_stalled() -> int:
    """Queue again the reviews whose worker was lost (no progress for ``REVIEW_LEASE_SECONDS``) or whose
    message never reached one (waiting for ``REQUEUE_SECONDS``); run by beat. How many were queued."""
    now = timezone.now()
    lost = now - timedelta(seconds=settings.REVIEW_LEASE_SECONDS)
    forgotten = now - timedelta(seconds=REQUEUE_SECONDS)
    stalled = Review.objects.filter(
        status=Review.Status.RUNNING, heartbeat_at__lt=lost
    ) | Review.objects.filter(status=Review.Status.QUEUED, heartbeat_at__lt=forgotten)
    with transaction.atomic():
        ids = list(stalled.select_for_update(skip_locked=True).values_list("pk", flat=True))
        Review.objects.filter(pk__in=ids).update(status=Review.Status.QUEUED, heartbeat_at=now)
        for review_id in ids:
            events.run_on_commit(review_id)
    return len(ids)


def person_forget(*, user_id: int) -> int:
    """A closed account's reviews (its decisions judged): deleted. How many."""
    deleted, _by_model = Review.objects.filter(user_id=user_id).delete()
    return deleted
