"""Reviews on PostgreSQL and Redis: asked for by a player (budgeted, once per seat), judged by a real
Celery worker on the reviews' own queue, shown on the match page, the match list and the replay; a
stand-in's moves left out; moderators review any seat but never in a match of their own."""

import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.cache import caches
from django.urls import reverse
from django.utils import timezone

from gameplay.engine import get_game
from gameplay.models import Match, Move
from privacy import services as privacy_services
from privacy.export import person_data
from reviews import services
from reviews.models import Review
from tests.factories import make_moderator, make_user
from tests.gameplay.helpers import wait_until
from tests.history.helpers import finished_match, play_out, seated_match

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_budgets_and_quick_reviews(settings) -> None:
    caches["default"].clear()
    settings.REVIEW_POSITIONS = 16  # judged as the site judges, noisier, in a tenth of the time


@pytest.fixture
def played(ana, ion) -> Match:
    """A finished two-player Americana match; a bot stood in for some of ana's and ion's moves."""
    match = finished_match("americana", [ana, ion], private=True, seed=3)
    assert Move.objects.filter(match=match, seat=0, actor=Move.Actor.TAKEOVER).exists()
    return match


def ask(client, match: Match):
    return client.post(reverse("reviews:ask", args=[match.pk]))


def judged(match: Match, seat: int = 0) -> Review:
    assert wait_until(lambda: Review.objects.get(match=match, seat=seat).status == Review.Status.DONE, 120)
    return Review.objects.get(match=match, seat=seat)


def test_a_player_asks_and_a_worker_judges_her_own_decisions_only(client, celery_worker, played, ana):
    client.force_login(ana)
    response = ask(client, played)
    assert response.status_code == 302 and response["Location"].endswith(f"/matches/{played.pk}/#review")
    review = judged(played)
    assert review.user == ana and review.requested_by == ana and review.done == review.total > 0
    own = set(
        Move.objects.filter(match=played, seat=0, actor=Move.Actor.PLAYER).values_list("seq", flat=True)
    )
    stood_in = set(
        Move.objects.filter(match=played, seat=0, actor=Move.Actor.TAKEOVER).values_list("seq", flat=True)
    )
    numbers = {decision["number"] for decision in review.decisions}
    assert numbers and numbers <= own and not numbers & stood_in, (
        "a stand-in's moves are not hers to answer for"
    )
    assert all(decision["seat"] == 0 for decision in review.decisions)
    for decision in review.decisions:
        chosen = Move.objects.get(match=played, seq=decision["number"]).action
        assert decision["actions"][decision["chosen"]] == chosen
        assert decision["loss"] == pytest.approx(
            decision["values"][decision["best"]] - decision["values"][decision["chosen"]], abs=1e-3
        )
    assert 0 <= review.accuracy <= 100 and 0 <= review.best_share <= 1

    page = client.get(reverse("history:match", args=[played.pk])).content.decode()
    shown = int(review.accuracy + 0.5)  # as the page rounds it
    assert 'data-testid="review-panel"' in page and f"Accuracy {shown}%" in page
    listing = client.get(reverse("history:mine")).content.decode()
    assert f"accuracy {shown}%" in listing
    marked = review.decisions[0]
    step = marked["number"] + marked["round"] - 1
    replay = client.get(reverse("history:replay", args=[played.pk]), {"step": step}).content.decode()
    assert 'data-testid="replay-mark"' in replay


def test_the_review_is_queued_on_its_own_queue(client, broker, played, ana):
    broker.delete(settings.CELERY_REVIEW_QUEUE)
    client.force_login(ana)
    ask(client, played)
    waiting = [json.loads(raw) for raw in broker.lrange(settings.CELERY_REVIEW_QUEUE, 0, -1)]
    assert [message["headers"]["task"] for message in waiting] == ["reviews.tasks.run"]
    review = Review.objects.get(match=played)
    assert json.loads(__import__("base64").b64decode(waiting[0]["body"]))[0] == [review.pk]
    assert not broker.lrange(settings.CELERY_TASK_DEFAULT_QUEUE, 0, -1), "nothing in front of the bots' turns"
    broker.delete(settings.CELERY_REVIEW_QUEUE)


def test_a_double_click_and_a_second_tab_make_one_review_and_spend_the_budget_once(
    client, broker, settings, ana, ion
):
    settings.REVIEWS_PER_DAY = 2
    first, second, third = (
        finished_match("classic", [ana, ion], private=True, seed=seed) for seed in (1, 2, 4)
    )
    client.force_login(ana)
    for _click in range(3):
        ask(client, first)
    assert Review.objects.filter(match=first).count() == 1
    ask(client, second)
    response = client.post(reverse("reviews:ask", args=[third.pk]), follow=True)
    assert "as many reviews as a day allows" in response.content.decode()
    assert not Review.objects.filter(match=third).exists()
    broker.delete(settings.CELERY_REVIEW_QUEUE)


def test_only_a_player_of_a_finished_match_may_ask(client, broker, ana, ion):
    stranger = make_user("stranger")
    running = play_out(seated_match("americana", [ana, ion], {"players": 2}, private=True), moves=5)
    with pytest.raises(services.ReviewError, match="Only a finished match"):
        services.request_review(user=ana, match_id=running.pk)
    done = finished_match("americana", [ana, ion], private=True)
    with pytest.raises(services.ReviewError, match="Only the players"):
        services.request_review(user=stranger, match_id=done.pk)
    client.force_login(stranger)
    assert client.get(reverse("reviews:panel", args=[done.pk])).status_code == 404
    assert not Review.objects.exists()


def test_the_task_run_twice_judges_once_and_a_lost_run_is_taken_up_again(broker, played, ana):
    review = services.request_review(user=ana, match_id=played.pk)
    services.run(review.pk)
    review.refresh_from_db()
    finished, marks = review.finished_at, review.decisions
    services.run(review.pk)  # delivered again: nothing to do
    review.refresh_from_db()
    assert review.finished_at == finished and review.decisions == marks

    # A run whose worker was lost halfway: silent past the lease, beat queues it again, and the new
    # run (seeded by the review) writes the same marks.
    Review.objects.filter(pk=review.pk).update(
        status=Review.Status.RUNNING, done=3, decisions=[], heartbeat_at=timezone.now() - timedelta(minutes=5)
    )
    broker.delete(settings.CELERY_REVIEW_QUEUE)
    assert services.resume_stalled() == 1
    assert Review.objects.get(pk=review.pk).status == Review.Status.QUEUED
    assert len(broker.lrange(settings.CELERY_REVIEW_QUEUE, 0, -1)) == 1
    services.run(review.pk)
    assert Review.objects.get(pk=review.pk).decisions == marks
    # One still making progress is left to its run.
    Review.objects.filter(pk=review.pk).update(status=Review.Status.RUNNING, heartbeat_at=timezone.now())
    assert services.resume_stalled() == 0
    services.run(review.pk)
    assert Review.objects.get(pk=review.pk).status == Review.Status.RUNNING
    broker.delete(settings.CELERY_REVIEW_QUEUE)


def test_a_moderator_reviews_any_persons_seat_but_never_in_a_match_of_their_own(client, broker, ana, ion):
    moderator = make_moderator()
    theirs = finished_match("classic", [ana, ion], private=True)
    own = finished_match("classic", [moderator, ion], private=True)
    with pytest.raises(services.ReviewError, match="played in"):
        services.request_as_moderator(moderator=moderator, match_id=own.pk, seat=1)
    staff = make_user("staff", is_staff=True)  # staff, but not granted the review of others' seats
    for asking in (ana, staff):
        with pytest.raises(services.ReviewError, match="Only moderators"):
            services.request_as_moderator(moderator=asking, match_id=theirs.pk, seat=1)
    review = services.request_as_moderator(moderator=moderator, match_id=theirs.pk, seat=1)
    assert review.user == ion and review.requested_by == moderator
    services.run(review.pk)
    # Ion reads the same review on his match page; ana does not see his seat's.
    page = reverse("history:match", args=[theirs.pk])
    client.force_login(ion)
    assert 'data-testid="review"' in client.get(page).content.decode()
    client.force_login(ana)
    assert 'data-testid="review"' not in client.get(page).content.decode()
    # The admin lists it for this moderator, and offers the form through the service.
    client.force_login(moderator)
    listing = client.get(reverse("admin:reviews_review_changelist")).content.decode()
    assert f"/admin/reviews/review/{review.pk}/change/" in listing
    assert reverse("admin:reviews_review_ask") in listing
    refused = client.post(reverse("admin:reviews_review_ask"), {"match": own.pk, "seat": 1})
    assert "played in" in refused.content.decode()
    other = Review.objects.filter(match=own)
    assert not other.exists()
    # Staff without the grant are shown neither the form nor the way to it.
    client.force_login(staff)
    assert client.get(reverse("admin:reviews_review_ask")).status_code == 302
    assert not client.post(reverse("admin:reviews_review_ask"), {"match": theirs.pk, "seat": 0}).content
    broker.delete(settings.CELERY_REVIEW_QUEUE)


def test_the_review_page_speaks_romanian(client, broker, played, ana):
    review = services.request_review(user=ana, match_id=played.pk)
    client.force_login(ana)
    client.cookies["django_language"] = "ro"
    waiting = client.get(reverse("history:match", args=[played.pk])).content.decode()
    assert "Analiza deciziilor tale" in waiting
    services.run(review.pk)
    page = client.get(reverse("history:match", args=[played.pk])).content.decode()
    assert "Precizie" in page
    broker.delete(settings.CELERY_REVIEW_QUEUE)


def test_a_persons_reviews_are_in_their_data_and_go_with_their_account(broker, played, ana):
    review = services.request_review(user=ana, match_id=played.pk)
    services.run(review.pk)
    data = person_data(ana)
    assert [entry["match"] for entry in data["reviews"]] == [played.pk]
    assert data["reviews"][0]["decisions"] == Review.objects.get(pk=review.pk).decisions
    privacy_services.account_erase(user=ana)
    assert not Review.objects.filter(pk=review.pk).exists()
    broker.delete(settings.CELERY_REVIEW_QUEUE)


def test_a_review_names_only_cards_the_seat_held_then(broker, played, ana):
    """What a review stores and shows of each decision is the seat's own: its legal actions, every card
    named among them one of its hand at that moment (as the leak tests hold a seat's page to its view)."""
    review = services.request_review(user=ana, match_id=played.pk)
    services.run(review.pk)
    review.refresh_from_db()
    game = get_game(played.game)
    state = game.new_match(game.options_from_json(played.options), played.seed)
    held = {}
    for move in Move.objects.filter(match=played).order_by("seq"):
        if game.awaiting_deal(state):
            game.next_round(state)
        held[move.seq] = set(game.view(state, 0)["hand"])
        game.apply(state, game.action_from_json(move.action))
    for decision in review.decisions:
        named = {action["card"] for action in decision["actions"] if "card" in action}
        assert named <= held[decision["number"]], f"move {decision['number']} names a card she did not hold"
    broker.delete(settings.CELERY_REVIEW_QUEUE)
