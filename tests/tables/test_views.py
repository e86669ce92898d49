"""Every table page and its error paths, through the test client."""

from django.urls import reverse

from gameplay import services as gameplay_services
from tables import services
from tables.models import Table
from tests.factories import make_user


def create_form(**overrides) -> dict:
    data = {
        "game": "americana",
        "turn_clock": "45",
        "americana_players": "3",
        "target": "301",
        "jokers": "on",
        "classic_players": "2",
        "match": "points8",
        "lead": "rotate",
    }
    return {**data, **overrides}


def test_lobby_lists_public_waiting_tables_newest_first_and_filters_by_game(client, ana):
    older = gameplay_services.table_create(
        host=ana, game="americana", options={}, turn_clock=45, is_private=False
    )
    newer = gameplay_services.table_create(
        host=ana, game="classic", options={}, turn_clock=45, is_private=False
    )
    gameplay_services.table_create(host=ana, game="classic", options={}, turn_clock=0, is_private=True)
    page = client.get(reverse("tables:lobby")).text
    assert page.index(f'id="table-{newer.pk}"') < page.index(f'id="table-{older.pk}"')
    assert page.count('class="table-card"') == 2
    filtered = client.get(reverse("tables:lobby"), {"game": "americana"}).text
    assert f'id="table-{older.pk}"' in filtered and f'id="table-{newer.pk}"' not in filtered


def test_lobby_answers_htmx_with_the_list_only(client, ana):
    gameplay_services.table_create(host=ana, game="americana", options={}, turn_clock=45, is_private=False)
    response = client.get(reverse("tables:lobby"), headers={"HX-Request": "true"})
    assert 'id="lobby-tables"' in response.text
    assert "<html" not in response.text


def test_create_table_needs_login(client, db):
    response = client.get(reverse("gameplay:table_create"))
    assert response.status_code == 302 and reverse("accounts:login") in response.url


def test_create_table_with_the_chosen_games_options(client, ana):
    client.force_login(ana)
    assert client.get(reverse("gameplay:table_create")).status_code == 200
    response = client.post(reverse("gameplay:table_create"), create_form())
    table = Table.objects.get()
    assert response.url == reverse("gameplay:table", args=[table.pk])
    assert table.options == {
        "players": 3,
        "jokers": True,
        "jack_draws_two": False,
        "court_follows": False,
        "target": 301,
    }
    response = client.post(
        reverse("gameplay:table_create"), create_form(game="classic", classic_players="4", lead="winner")
    )
    classic = Table.objects.get(game="classic")
    assert classic.options == {"players": 4, "match": "points8", "lead": "winner"}


def test_create_table_shows_clear_errors(client, ana):
    client.force_login(ana)
    response = client.post(reverse("gameplay:table_create"), create_form(turn_clock="0"))
    assert "Only private tables may play without a turn clock" in response.text
    response = client.post(reverse("gameplay:table_create"), create_form(target="100"))
    assert "Select a valid choice" in response.text
    assert not Table.objects.exists()


def test_table_page_shows_seats_and_private_tables_only_to_their_players(client, ana, ion):
    public = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    private = gameplay_services.table_create(
        host=ana, game="classic", options={}, turn_clock=0, is_private=True
    )
    client.force_login(ion)
    page = client.get(reverse("gameplay:table", args=[public.pk]))
    assert page.status_code == 200 and "Sit here" in page.text and "ana" in page.text
    refused = client.get(reverse("gameplay:table", args=[private.pk]))
    assert refused.status_code == 403
    assert private.invite_token not in refused.text
    client.force_login(ana)
    mine = client.get(reverse("gameplay:table", args=[private.pk]))
    assert private.invite_token in mine.text
    assert client.get(reverse("gameplay:table", args=[999999])).status_code == 404


def test_sit_leave_and_errors_become_messages(client, ana, ion):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 3}, turn_clock=45, is_private=False
    )
    client.force_login(ion)
    response = client.post(reverse("tables:sit", args=[table.pk]), {"position": "0"}, follow=True)
    assert "Someone else just took this seat" in response.text
    client.post(reverse("tables:sit", args=[table.pk]), {"position": "1"})
    assert table.seats.get(position=1).user == ion
    response = client.post(reverse("tables:sit", args=[table.pk]), {"position": "2"}, follow=True)
    assert "You already sit at this table" in response.text
    response = client.post(reverse("tables:leave", args=[table.pk]))
    assert response.url == reverse("tables:lobby")
    assert table.seats.get(position=1).user is None


def test_host_adds_and_removes_bots_and_kicks_from_the_page(client, ana, ion):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 4}, turn_clock=45, is_private=False
    )
    services.seat_take(table_id=table.pk, user=ion)
    client.force_login(ana)
    client.post(reverse("tables:bot_add", args=[table.pk]), {"position": "2", "level": "hard"})
    assert table.seats.get(position=2).bot_level == "hard"
    client.post(reverse("tables:bot_remove", args=[table.pk]), {"position": "2"})
    assert table.seats.get(position=2).is_free
    client.post(reverse("tables:kick", args=[table.pk]), {"position": "1"})
    assert table.seats.get(position=1).is_free
    response = client.post(
        reverse("tables:bot_add", args=[table.pk]), {"position": "x", "level": "x"}, follow=True
    )
    assert "Choose a bot level" in response.text


def test_non_host_cannot_add_bots(client, ana, ion):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 4}, turn_clock=45, is_private=False
    )
    client.force_login(ion)
    response = client.post(
        reverse("tables:bot_add", args=[table.pk]), {"position": "2", "level": "easy"}, follow=True
    )
    assert "Only the host can do that" in response.text
    assert table.seats.get(position=2).is_free


def test_seat_changes_need_post(client, ana):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={}, turn_clock=45, is_private=False
    )
    client.force_login(ana)
    assert client.get(reverse("tables:sit", args=[table.pk])).status_code == 405


def test_invitation_link_seats_the_visitor_after_login(client, ana, ion):
    table = gameplay_services.table_create(
        host=ana, game="classic", options={}, turn_clock=0, is_private=True
    )
    url = reverse("tables:invitation", args=[table.invite_token])
    response = client.get(url)
    assert response.status_code == 302 and reverse("accounts:login") in response.url
    client.force_login(ion)
    response = client.get(url)
    assert response.url == reverse("gameplay:table", args=[table.pk])
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert client.get(reverse("tables:invitation", args=["nope"])).status_code == 404


def test_invitation_to_a_full_table_explains_and_returns_to_the_lobby(client, ana, ion):
    table = gameplay_services.table_create(
        host=ana, game="classic", options={}, turn_clock=0, is_private=True
    )
    services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    client.force_login(make_user("eva"))
    response = client.get(reverse("tables:invitation", args=[table.invite_token]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("tables:lobby")
    assert "already started" in response.text


def test_play_now_button(client, ana):
    client.force_login(ana)
    response = client.post(reverse("gameplay:play_now"), {"game": "americana"})
    table = Table.objects.get()
    assert response.url == reverse("gameplay:table", args=[table.pk])
    assert table.status == Table.Status.PLAYING
    response = client.post(reverse("gameplay:play_now"), {"game": "poker"}, follow=True)
    assert Table.objects.count() == 1


def test_rematch_button(client, ana):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    services.bot_add(table_id=table.pk, by=ana, position=1, level="easy")
    client.force_login(ana)
    response = client.post(reverse("gameplay:rematch", args=[table.pk]), follow=True)
    assert "once the match is over" in response.text
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    table.matches.update(status="finished")
    response = client.post(reverse("gameplay:rematch", args=[table.pk]))
    rematch = Table.objects.get(rematch_of=table)
    assert response.url == reverse("gameplay:table", args=[rematch.pk])
    assert rematch.status == Table.Status.PLAYING


def test_table_pages_in_romanian(client, ana):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    client.force_login(ana)
    page = client.get(reverse("gameplay:table", args=[table.pk]), headers={"Accept-Language": "ro"}).text
    assert "Adaugă un bot" in page
    assert "Locul 1" in page
    lobby = client.get(reverse("tables:lobby"), headers={"Accept-Language": "ro"}).text
    assert "Mese care așteaptă jucători" in lobby
