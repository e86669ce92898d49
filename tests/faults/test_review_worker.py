"""A review's worker killed with -9 halfway loses nothing: the review, silent past its lease, is queued
again by beat's ``resume_stalled``, another worker judges it from the start, and the marks are the ones
its seed makes."""

import pytest
from django.utils import timezone

from bots import review as judging
from gameplay.models import Move
from reviews import services
from reviews.models import Review
from tests.factories import make_user
from tests.faults.play import wait_for
from tests.history.helpers import finished_match

pytestmark = pytest.mark.faults

POSITIONS = 600
"""Enough playouts a decision that the review lasts seconds: long enough to be killed halfway."""


def test_a_review_outlives_its_killed_worker(stack, settings):
    settings.REVIEW_LEASE_SECONDS = 2
    stack.env.update(REVIEW_LEASE_SECONDS="2", REVIEW_POSITIONS=str(POSITIONS))
    ana, ion = make_user("ana"), make_user("ion")
    match = finished_match("americana", [ana, ion], private=True, seed=3)
    first = stack.worker()
    review = services.request_review(user=ana, match_id=match.pk)
    halfway = wait_for(
        lambda: (r := Review.objects.get(pk=review.pk)).status == Review.Status.RUNNING and r.done > 0 and r,
        60,
        "a worker starts judging and writes its progress",
    )
    stack.crash(first)
    assert halfway.done < halfway.total, "killed before the end"
    wait_for(
        lambda: (timezone.now() - Review.objects.get(pk=review.pk).heartbeat_at).total_seconds() > 2,
        10,
        "the review falls silent past its lease",
    )
    assert Review.objects.get(pk=review.pk).status == Review.Status.RUNNING, "nothing judges it meanwhile"
    assert services.resume_stalled() == 1  # what beat runs every minute

    stack.worker()
    done = wait_for(
        lambda: (r := Review.objects.get(pk=review.pk)).status == Review.Status.DONE and r,
        180,
        "another worker judges it to the end",
    )
    own = set(Move.objects.filter(match=match, seat=0, actor="player").values_list("seq", flat=True))
    actions = list(Move.objects.filter(match=match).order_by("seq").values_list("action", flat=True))
    first_decision = judging.decision_points(
        match.game, match.options, match.seed, actions, seats=[0], judged=own.__contains__
    )[0]
    again = judging.judge(match.game, first_decision, seed=done.seed, positions=POSITIONS)
    assert done.decisions[0] == again.to_json(), "the seed makes the same marks, whoever judges"
    assert done.total == len(done.decisions) == done.done
