"""The tournaments' pages over HTTP on PostgreSQL and Redis: the list, a tournament's page and its
buttons through the real services, the form that makes a private tournament, the live part that is
the same for every viewer, and the trophies on a profile."""

import re
from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from gameplay import services as gameplay_services
from tests.factories import make_user
from tournaments import selectors
from tournaments.models import Entry, Kind, Pairing, Tournament, Trophy

from .conftest import entered, tournament

pytestmark = pytest.mark.django_db(transaction=True)

CREATE_FORM = {
    "name": "Friday friends",
    "kind": "arena",
    "game": "americana",
    "players": 3,
    "target": 301,
    "match": "points8",
    "turn_clock": 45,
    "starts_in_minutes": 15,
    "minutes": 40,
    "rounds": 5,
    "round_minutes": 15,
}


def section(page: str, testid: str) -> str:
    """The HTML of the list marked ``data-testid=testid`` on ``page``."""
    start = page.index(f'data-testid="{testid}"')
    return page[start : page.index("</ul>", start)]


def live_part(page: str) -> str:
    """What the page holds inside ``#tournament-live``."""
    start = page.index(">", page.index('<div id="tournament-live"')) + 1
    return page[start : page.index("\n  </div>\n</section>", start)].strip()


def finished_with_podium(name: str = "Sunday cup") -> tuple[Tournament, list]:
    """A finished arena of three, its places kept and its podium's trophies given, as its end leaves it."""
    ended = timezone.now() - timedelta(hours=1)
    event = tournament(status=Tournament.Status.FINISHED, starts_in=timedelta(hours=-2))
    Tournament.objects.filter(pk=event.pk).update(name=name, finished_at=ended)
    event.refresh_from_db()
    people = [make_user(f"podium{place}") for place in (1, 2, 3)]
    for place, person in enumerate(people, start=1):
        entered(event, person, points=10 - place, matches=3, wins=3 - place, rank=place)
        Trophy.objects.create(user=person, tournament=event, place=place, points=10 - place, won_at=ended)
    return event, people


def test_the_list_shows_upcoming_running_and_finished_with_countdowns_counts_and_winners(client):
    upcoming = tournament(starts_in=timedelta(minutes=20))
    Tournament.objects.filter(pk=upcoming.pk).update(name="Hourly arena")
    running = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-5))
    Tournament.objects.filter(pk=running.pk).update(name="Busy arena")
    for index in range(3):
        entered(running, make_user(f"playing{index}"))
    entered(running, make_user("resting"), paused=True)
    entered(running, make_user("cheat"), disqualified_at=timezone.now())
    finished_with_podium()

    page = client.get("/tournaments/").content.decode()

    upcoming_list = section(page, "tournaments-upcoming")
    assert "Hourly arena" in upcoming_list and "Busy arena" not in upcoming_list
    starts = int(upcoming.starts_at.timestamp())
    assert f'data-countdown-to="{starts}"' in upcoming_list
    running_list = section(page, "tournaments-running")
    assert "Busy arena" in running_list and "3 playing" in running_list
    finished_list = section(page, "tournaments-finished")
    assert "Sunday cup" in finished_list and "🏆 podium1" in finished_list
    assert 'data-testid="tournaments-link"' in page  # the site's menu leads here


def test_a_private_tournament_is_shown_to_its_creator_and_players_and_to_whoever_has_its_link(client):
    ana, ion, stranger = make_user("ana"), make_user("ion"), make_user("stranger")
    event = tournament(is_private=True, created_by=ana)
    Tournament.objects.filter(pk=event.pk).update(name="Family cup")
    entered(event, ion)

    for person, sees in ((ana, True), (ion, True), (stranger, False)):
        client.force_login(person)
        assert ("Family cup" in client.get("/tournaments/").content.decode()) is sees
        assert client.get(f"/tournaments/{event.pk}/").status_code == (200 if sees else 404)
    client.logout()
    assert "Family cup" not in client.get("/tournaments/").content.decode()

    client.force_login(stranger)
    assert client.get(f"/tournaments/{event.pk}/?token=wrong").status_code == 404
    page = client.get(f"/tournaments/{event.pk}/?token={event.join_token}").content.decode()
    assert 'data-testid="tournament-join"' in page and f'value="{event.join_token}"' in page
    assert 'data-testid="tournament-join-link"' not in page  # the link to share is its creator's
    response = client.post(f"/tournaments/{event.pk}/join/", {"token": event.join_token}, follow=True)
    assert "You joined the tournament." in response.content.decode()
    assert Entry.objects.filter(tournament=event, user=stranger).exists()
    assert "Family cup" in client.get("/tournaments/").content.decode()


def test_join_withdraw_pause_and_come_back_through_the_page(client):
    ana = make_user("ana")
    event = tournament()
    client.force_login(ana)
    url = f"/tournaments/{event.pk}/"

    response = client.post(f"{url}join/", follow=True)
    assert response.redirect_chain[-1][0] == url
    page = response.content.decode()
    assert "You joined the tournament." in page and 'data-testid="tournament-withdraw"' in page
    assert Entry.objects.filter(tournament=event, user=ana).exists()

    page = client.post(f"{url}leave/", follow=True).content.decode()
    assert "You left the tournament." in page and 'data-testid="tournament-join"' in page
    assert not Entry.objects.filter(tournament=event, user=ana).exists()

    client.post(f"{url}join/")
    Tournament.objects.filter(pk=event.pk).update(status=Tournament.Status.RUNNING)
    page = client.get(url).content.decode()
    assert 'data-testid="tournament-pause"' in page and "Waiting for a table" in page
    assert re.search(r'data-my-place data-testid="my-place">1<', page)

    page = client.post(f"{url}leave/", follow=True).content.decode()
    assert "Paused: you keep your points" in page and 'data-testid="tournament-come-back"' in page
    assert Entry.objects.get(tournament=event, user=ana).paused

    page = client.post(f"{url}join/", follow=True).content.decode()
    assert "You are playing: a table will open by itself." in page
    assert not Entry.objects.get(tournament=event, user=ana).paused


def test_a_refusal_is_said_on_the_page_and_buttons_need_a_login(client):
    event = tournament()
    url = f"/tournaments/{event.pk}/"
    assert client.post(f"{url}join/")["Location"].startswith("/accounts/login/")
    assert "Log in to join" in client.get(url).content.decode()

    client.force_login(make_user("newcomer", fresh=True))
    page = client.post(f"{url}join/", follow=True).content.decode()
    assert "Tournaments are rated: your account must be confirmed" in page
    assert not Entry.objects.exists()


def test_the_form_makes_a_private_tournament_and_the_day_s_limit_refuses_the_fourth(client, settings):
    settings.TOURNAMENTS_CREATED_PER_DAY = 3
    ana = make_user("ana")
    client.force_login(ana)

    response = client.post("/tournaments/new/", CREATE_FORM)
    event = Tournament.objects.get()
    assert response["Location"] == f"/tournaments/{event.pk}/"
    assert event.is_private and event.created_by == ana and event.kind == Kind.ARENA
    assert event.options["players"] == 3 and event.options["target"] == 301
    assert (event.turn_clock, event.minutes) == (45, 40)
    assert Entry.objects.filter(tournament=event, user=ana).exists()
    page = client.get(response["Location"]).content.decode()
    assert f"/tournaments/{event.pk}/?token={event.join_token}" in page

    swiss = {**CREATE_FORM, "kind": "swiss", "game": "classic", "players": 2, "match": "games2"}
    client.post("/tournaments/new/", swiss)
    made = Tournament.objects.get(kind=Kind.SWISS)
    assert (made.rounds, made.minutes, made.options["match"]) == (5, 15, "games2")
    client.post("/tournaments/new/", CREATE_FORM)
    assert Tournament.objects.count() == 3

    response = client.post("/tournaments/new/", CREATE_FORM)
    assert response.status_code == 200 and "as many tournaments as a day allows" in response.content.decode()
    assert 'value="Friday friends"' in response.content.decode()  # the form is kept
    assert Tournament.objects.count() == 3


def test_the_form_says_why_a_length_is_refused(client):
    client.force_login(make_user("ana"))
    response = client.post("/tournaments/new/", {**CREATE_FORM, "minutes": 500})
    assert "Choose a length from 10 to 120 minutes." in response.content.decode()
    assert not Tournament.objects.exists()


def test_the_live_part_is_the_same_for_every_viewer_and_shows_the_top_table(client):
    event = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-5))
    ana, ion, eva, stranger = (make_user(name) for name in ("ana", "ion", "eva", "stranger"))
    entered(event, ana, points=6, matches=3, wins=3, streak=2)
    entered(event, ion, points=2, matches=3, wins=1)
    entered(event, eva, points=0, matches=2, paused=True)
    table = gameplay_services.table_create(
        host=ana, game="classic", options={}, turn_clock=20, is_private=False
    )
    Pairing.objects.create(tournament=event, table=table, seats=[ana.pk, ion.pk], made_at=timezone.now())
    Entry.objects.filter(user=ana).update(table=table)

    parts = []
    for viewer in (ana, stranger):
        client.force_login(viewer)
        parts.append(live_part(client.get(f"/tournaments/{event.pk}/").content.decode()))
    assert parts[0] == parts[1]
    alone = render_to_string("tournaments/_live.html", selectors.live_context(tournament_id=event.pk))
    assert parts[0] == alone.strip()

    live = parts[0]
    assert (
        live.index(f'data-user="{ana.pk}"')
        < live.index(f'data-user="{ion.pk}"')
        < live.index(f'data-user="{eva.pk}"')
    )
    assert "2 playing" in live and "🔥" in live and "paused" in live
    assert f'href="/tables/{table.pk}/"' in live and "Watch" in live
    client.force_login(ana)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert (
        'data-testid="my-fire"' in page and f'href="/tables/{table.pk}/"' in page.split("tournament-live")[0]
    )


def test_a_long_standing_shows_its_first_rows_and_a_cancelled_one_says_why(client, monkeypatch):
    monkeypatch.setattr(selectors, "STANDING_SHOWN", 2)
    event = tournament()
    for index in range(3):
        entered(event, make_user(f"player{index}"), rating=1500 + index)
    live = live_part(client.get(f"/tournaments/{event.pk}/").content.decode())
    assert live.count("data-user=") == 2 and "The first 2 of 3 players." in live

    Tournament.objects.filter(pk=event.pk).update(
        status=Tournament.Status.CANCELLED, cancelled_because="Too few players joined."
    )
    live = live_part(client.get(f"/tournaments/{event.pk}/").content.decode())
    assert re.search(r'data-testid="tournament-cancelled-because">Too few players joined.<', live)


def test_the_finished_page_shows_the_podium_and_the_profile_its_trophies(client):
    event, (_first, second, _third) = finished_with_podium()
    client.force_login(make_user("viewer"))
    live = live_part(client.get(f"/tournaments/{event.pk}/").content.decode())
    assert 'data-testid="tournament-podium"' in live and "Final standings" in live
    assert live.index("podium1") < live.index("podium2") < live.index("podium3")

    profile = client.get(f"/players/{second.username}/").content.decode()
    assert 'data-testid="profile-trophies"' in profile
    assert "place 2" in profile and f'href="/tournaments/{event.pk}/"' in profile and "Sunday cup" in profile
    assert 'data-testid="profile-trophies"' not in client.get("/players/viewer/").content.decode()


def test_a_swiss_round_shows_when_the_next_round_starts_at_the_latest():
    started = timezone.now().replace(microsecond=0)
    event = tournament(kind=Kind.SWISS, status=Tournament.Status.RUNNING, rounds=3, minutes=15)
    Tournament.objects.filter(pk=event.pk).update(round=1, round_started_at=started)

    live = render_to_string("tournaments/_live.html", selectors.live_context(tournament_id=event.pk))

    assert "Round 1 of 3" in live and "Next round at the latest" in live
    assert f'data-countdown-to="{int((started + timedelta(minutes=15)).timestamp())}"' in live
    Tournament.objects.filter(pk=event.pk).update(round=3)
    last = render_to_string("tournaments/_live.html", selectors.live_context(tournament_id=event.pk))
    assert "Round 3 of 3" in last and "Next round" not in last


def test_the_home_page_shows_the_running_tournaments_and_the_next_to_start(client):
    running = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-5), name="Now cup")
    soon = tournament(starts_in=timedelta(minutes=30), name="Soon cup")
    tournament(starts_in=timedelta(minutes=10), name="Friends cup", is_private=True)
    tournament(status=Tournament.Status.FINISHED, starts_in=timedelta(hours=-3), name="Old cup")

    home = client.get("/").content.decode()

    shown = section(home, "tournaments-soon")
    assert shown.index("Now cup") < shown.index("Soon cup")
    assert f"/tournaments/{running.pk}/" in shown and f"/tournaments/{soon.pk}/" in shown
    assert "Friends cup" not in shown and "Old cup" not in shown
    Tournament.objects.all().delete()
    assert 'data-testid="tournaments-soon"' not in client.get("/").content.decode()
