"""The ratings' pages on PostgreSQL: leaderboards, the profile, a match's changes, the lobby, the admin."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import services as account_services
from accounts.models import User
from gameplay import services as gameplay_services
from ratings import services as rating_services
from ratings.models import RatedMatch, Rating, RatingChange
from ratings.selectors import BOARD_PAGE
from tests.factories import make_user
from tests.history.helpers import play_out
from tests.ratings.helpers import rated_and_played, rated_table_match

pytestmark = pytest.mark.django_db


def established(user, game: str = "americana", shown: int = 1600, *, days_ago: float = 1, matches: int = 20):
    return Rating.objects.create(
        user=user,
        game=game,
        shown=shown,
        peak=shown,
        matches=matches,
        sigma=3.0,
        established=True,
        last_played_at=timezone.now() - timedelta(days=days_ago),
    )


def test_the_leaderboard_lists_established_recent_players_who_are_not_banned(client):
    viewer = make_user("viewer")
    for index, shown in enumerate([1700, 1650, 1600]):
        established(make_user(f"top{index}"), shown=shown)
    established(make_user("stale"), shown=1900, days_ago=31)
    Rating.objects.create(user=make_user("newbie"), game="americana", shown=1950, matches=3)
    banned = make_user("banned")
    established(banned, shown=1800)
    account_services.user_ban(user=banned, by=make_user("root", is_superuser=True, is_staff=True))
    established(make_user("classicist"), game="classic", shown=1750)
    client.force_login(viewer)
    page = client.get(reverse("ratings:leaderboard") + "?game=americana").text
    names = [
        name for name in ("top0", "top1", "top2", "stale", "newbie", "banned", "classicist") if name in page
    ]
    assert names == ["top0", "top1", "top2"]
    assert page.index("top0") < page.index("top1") < page.index("top2")
    assert "not on this leaderboard yet" in page


def test_the_reader_s_own_place_shows_even_off_the_page_in_a_fixed_number_of_queries(client):
    me = make_user("me")
    # Many players, made without hashing a password for each.
    others = User.objects.bulk_create(
        User(username=f"p{index:03}", password="!") for index in range(BOARD_PAGE + 4)
    )
    for index, other in enumerate(others):
        established(other, shown=2000 - index)
    established(me, shown=2000 - BOARD_PAGE - 2)  # below the first page
    client.force_login(me)
    url = reverse("ratings:leaderboard") + "?game=americana"
    with CaptureQueriesContext(connection) as many:
        page = client.get(url).text
    assert f"Your place: {BOARD_PAGE + 3} ({2000 - BOARD_PAGE - 2})" in page
    assert page.count('data-testid="board-row"') == BOARD_PAGE
    second = client.get(url + "&page=2").text
    assert 'class="is-me"' in second and "Your place" not in second
    Rating.objects.exclude(user=me).filter(shown__lt=1990).delete()
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    assert len(few) == len(many)


def test_the_profile_shows_each_game_s_rating_peak_place_and_plot_in_fixed_queries(client):
    ana, ion, eva = (make_user(name) for name in ("ana", "ion", "eva"))
    rated_and_played("classic", [ana, ion], {"match": "points8"})
    client.force_login(eva)
    url = reverse("history:player", args=["ana"])
    with CaptureQueriesContext(connection) as one:
        page = client.get(url).text
    rating = Rating.objects.get(user=ana, game="classic")
    assert 'data-testid="rating-plot"' in page and f"{rating.shown}?" in page
    assert "not listed while provisional" in page and "No rated match yet." in page  # Americana has none
    # Three rated matches a day together at most (RATED_PAIR_DAILY): the fourth is against someone else.
    for seed, opponent in zip(range(1, 4), (ion, ion, make_user("dan")), strict=True):
        rated_and_played("classic", [ana, opponent], {"match": "points8"}, seed=seed)
    with CaptureQueriesContext(connection) as four:
        page = client.get(url).text
    assert len(four) == len(one)
    assert page.count("<tr><td>") >= 4, "the plot's text equivalent lists every rated match"
    Rating.objects.filter(user=ana, game="classic").update(established=True, last_played_at=timezone.now())
    assert "place 1" in client.get(url).text


def test_a_match_s_changes_read_pending_then_done_and_a_private_table_stays_private(client):
    ana, ion, eva = (make_user(name) for name in ("ana", "ion", "eva"))
    match = play_out(rated_table_match("classic", [ana, ion], {"match": "points8"}))
    url = reverse("ratings:match_changes", args=[match.pk])
    client.force_login(eva)
    pending = client.get(url).text
    assert "Updating the ratings" in pending and 'hx-trigger="load delay:2s"' in pending
    rating_services.match_rate(match_id=match.pk)
    done = client.get(url).text
    assert "hx-trigger" not in done and done.count('data-testid="rating-change"') == 2
    assert "ana" in done and "ion" in done and "→ 1" in done
    # A loss reads with a true minus sign; a match that ended level moves nobody ("±0").
    assert ("\N{MINUS SIGN}" if match.result["winners"] else "\N{PLUS-MINUS SIGN}0") in done
    match.table.__class__.objects.filter(pk=match.table_id).update(is_private=True)
    assert client.get(url).status_code == 403
    casual = play_out(
        rated_table_match("classic", [eva, make_user("dan")], {"match": "points8"}, rated=False)
    )
    client.force_login(eva)
    assert client.get(reverse("ratings:match_changes", args=[casual.pk])).text.strip() == ""


def test_my_matches_the_match_page_and_the_replay_show_the_change(client):
    ana, ion = make_user("ana"), make_user("ion")
    match = rated_and_played("classic", [ana, ion], {"match": "points8"})
    mine = RatingChange.objects.get(match=match, user=ana)
    client.force_login(ana)
    shown = f"→ {mine.after}"
    assert 'data-testid="row-rating"' in client.get(reverse("history:mine")).text
    assert shown in client.get(reverse("history:mine")).text
    assert shown in client.get(reverse("history:match", args=[match.pk])).text
    assert shown in client.get(reverse("history:replay", args=[match.pk])).text


def test_the_lobby_shows_the_ratings_of_the_people_seated(client):
    ana, ion = make_user("ana"), make_user("ion")
    established(ana, shown=1612)
    for host in (ana, ion):
        gameplay_services.table_create(
            host=host,
            game="americana",
            options={"players": 3},
            turn_clock=45,
            is_private=False,
            rated=True,
        )
    client.get(reverse("tables:lobby"))  # the counts of who is online, kept a few seconds, are read
    with CaptureQueriesContext(connection) as two:
        lobby = client.get(reverse("tables:lobby")).text
    assert "ana <span" in lobby and "1612" in lobby and "1500?" in lobby
    gameplay_services.table_create(
        host=make_user("eva"), game="americana", options={"players": 3}, turn_clock=45, is_private=False
    )
    with CaptureQueriesContext(connection) as three:
        client.get(reverse("tables:lobby"))
    assert len(three) == len(two), "the ratings are read once for the whole list"


def test_a_moderator_voids_a_match_s_rating_saying_why_and_changes_nothing_else(mod_client):
    ana, ion = make_user("ana"), make_user("ion")
    match = rated_and_played("classic", [ana, ion], {"match": "points8"})
    rated = RatedMatch.objects.get(match=match)
    changelist = reverse("admin:ratings_ratedmatch_changelist")
    asked = mod_client.post(changelist, {"action": "void_ratings", "_selected_action": [rated.pk]})
    assert asked.status_code == 200 and 'name="reason"' in asked.text
    assert RatedMatch.objects.get(pk=rated.pk).voided_at is None
    done = mod_client.post(
        changelist, {"action": "void_ratings", "_selected_action": [rated.pk], "reason": "Collusion"}
    )
    assert done.status_code == 302
    rated.refresh_from_db()
    assert rated.void_reason == "Collusion" and rated.voided_by.username == "mod"
    assert Rating.objects.get(user=ana, game="classic").matches == 0
    rating = Rating.objects.get(user=ana, game="classic")
    change_url = reverse("admin:ratings_rating_change", args=[rating.pk])
    assert mod_client.post(change_url, {"shown": 3000}).status_code == 403
    assert Rating.objects.get(pk=rating.pk).shown != 3000
    assert mod_client.get(reverse("admin:ratings_ratingchange_changelist") + "?q=ana").status_code == 200


def test_staff_outside_the_moderators_cannot_void(client):
    ana, ion = make_user("ana"), make_user("ion")
    match = rated_and_played("classic", [ana, ion], {"match": "points8"})
    helper = make_user("helper", is_staff=True)
    client.force_login(helper)
    rated = RatedMatch.objects.get(match=match)
    response = client.post(
        reverse("admin:ratings_ratedmatch_changelist"),
        {"action": "void_ratings", "_selected_action": [rated.pk], "reason": "no"},
    )
    assert response.status_code == 403
    assert RatedMatch.objects.get(pk=rated.pk).voided_at is None


def test_a_moderator_who_played_a_rated_match_cannot_void_it(mod_client):
    moderator, ion = User.objects.get(username="mod"), make_user("ion")
    match = rated_and_played("classic", [moderator, ion], {"match": "points8"})
    rated = RatedMatch.objects.get(match=match)
    before = Rating.objects.get(user=moderator, game="classic").mu
    response = mod_client.post(
        reverse("admin:ratings_ratedmatch_changelist"),
        {"action": "void_ratings", "_selected_action": [rated.pk], "reason": "I lost, so collusion"},
        follow=True,
    )
    shown = [str(message) for message in response.context["messages"]]
    assert any("Nobody decides a case they are part of" in text for text in shown)
    rated.refresh_from_db()
    assert rated.voided_at is None and not RatingChange.objects.filter(match=match, voided=True).exists()
    assert Rating.objects.get(user=moderator, game="classic").mu == before
