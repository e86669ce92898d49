"""The social pages over HTTP: the pool's form and waiting page, Cancel, friends, the bell's page, and
forms that come back only to this site's own pages."""

import pytest
from django.utils import timezone

from gameplay import services as gameplay_services
from social import services
from social.models import FriendRequest, Notice, PoolEntry
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_pool_s_pages_need_a_login(client):
    for url in ("/play/", "/friends/", "/notices/"):
        assert client.get(url)["Location"].startswith("/accounts/login/")
    assert client.post("/play/", {"game": "americana"})["Location"].startswith("/accounts/login/")
    assert not PoolEntry.objects.exists()


def test_joining_shows_the_waiting_page_and_cancel_shows_the_form_again(client):
    client.force_login(make_user("ana"))
    form = {"game": "classic", "players": 2, "target": 101, "match": "points21"}
    assert client.post("/play/", form)["Location"] == "/play/"
    page = client.get("/play/").content.decode()
    assert 'data-testid="pool-waiting"' in page and "Points to 21 (long table)" in page
    assert 'content="/ws/me/?lang=en&pool=1"' in page
    assert client.post("/play/cancel/")["Location"] == "/play/"
    assert 'data-testid="pool-form"' in client.get("/play/").content.decode()
    assert not PoolEntry.objects.exists()


def test_a_person_paired_is_sent_to_the_table_and_then_done_with_the_pool(client):
    ana, ion = make_user("ana"), make_user("ion")
    services.pool_join(user=ana, game="americana", players=2, length=101, fill_with_bots=False)
    entry = services.pool_join(user=ion, game="americana", players=2, length=101, fill_with_bots=False)
    client.force_login(ana)
    assert client.get("/play/")["Location"] == f"/tables/{entry.table_id}/"
    assert not PoolEntry.objects.filter(user=ana).exists()
    client.force_login(ion)
    response = client.post("/play/cancel/", follow=True)
    assert response.redirect_chain[-1][0] == f"/tables/{entry.table_id}/"
    assert "Players were found just before you cancelled" in response.content.decode()


def test_a_refused_join_says_why_in_the_person_s_language(client):
    ana = make_user("ana")
    gameplay_services.table_create(host=ana, game="americana", options={}, turn_clock=45, is_private=False)
    client.force_login(ana)
    client.cookies["django_language"] = "ro"
    response = client.post(
        "/play/", {"game": "americana", "players": 2, "target": 101, "match": "points8"}, follow=True
    )
    assert "Stai deja la o masă" in response.content.decode()
    assert not PoolEntry.objects.exists()


def test_friend_forms_come_back_to_the_page_they_were_on_but_never_to_another_site(client):
    ana, ion = make_user("ana"), make_user("ion")
    client.force_login(ana)
    response = client.post("/friends/request/", {"person": ion.pk, "next": "/players/ion/"})
    assert response["Location"] == "/players/ion/"
    assert FriendRequest.objects.filter(sender=ana, recipient=ion).exists()
    response = client.post("/friends/block/", {"username": "ION", "next": "https://evil.example/"})
    assert response["Location"] == "/friends/"
    assert not FriendRequest.objects.exists()
    page = client.get("/friends/").content.decode()
    assert "Blocked" in page and "ion" in page


def test_an_unconfirmed_account_sends_no_friend_request_and_is_told_to_confirm(client):
    newcomer, ion = make_user("newcomer", fresh=True), make_user("ion")
    client.force_login(newcomer)
    page = client.post("/friends/request/", {"person": ion.pk, "next": "/players/ion/"}, follow=True)
    assert "You can send friend requests once your email address is confirmed" in page.text
    assert "profile page" in page.text
    assert not FriendRequest.objects.exists() and not Notice.objects.exists()
    newcomer.email_confirmed_at = timezone.now()
    newcomer.save(update_fields=["email_confirmed_at"])
    page = client.post("/friends/request/", {"person": ion.pk, "next": "/players/ion/"}, follow=True)
    assert "Friend request sent to ion." in page.text
    assert Notice.objects.get(recipient=ion).sender == newcomer


def test_the_profile_offers_a_request_and_the_bell_counts_what_is_new(client):
    ana, ion = make_user("ana"), make_user("ion")
    client.force_login(ana)
    assert 'data-testid="add-friend"' in client.get("/players/ion/").content.decode()
    assert 'data-testid="add-friend"' not in client.get("/players/ana/").content.decode()
    client.post("/friends/request/", {"person": ion.pk})
    client.force_login(ion)
    home = client.get("/").content.decode()
    assert 'data-bell-count aria-live="polite">1<' in home
    assert "ana would like to be your friend." in client.get("/notices/").content.decode()
    assert Notice.objects.get(recipient=ion).read_at is not None
    assert 'data-bell-count aria-live="polite"><' in client.get("/").content.decode()


def test_the_waiting_room_lists_friends_to_invite_and_the_invitation_seats_them(client):
    ana, ion = make_user("ana"), make_user("ion")
    services.friend_request_send(sender=ana, recipient=ion)
    services.friend_request_answer(user=ion, sender_id=ana.pk, accept=True)
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 3}, turn_clock=0, is_private=True
    )
    client.force_login(ana)
    assert 'data-testid="invite-ion"' in client.get(f"/tables/{table.pk}/").content.decode()
    response = client.post(f"/tables/{table.pk}/invite/", {"person": ion.pk, "next": f"/tables/{table.pk}/"})
    assert response["Location"] == f"/tables/{table.pk}/"
    notice = Notice.objects.get(recipient=ion, kind=Notice.Kind.INVITATION)
    client.force_login(ion)
    assert client.post(f"/notices/{notice.pk}/join/")["Location"] == f"/tables/{table.pk}/"
    assert table.seats.filter(user=ion).exists()


def test_the_lobby_and_home_show_the_counts_and_the_lobby_the_live_tables(client):
    ana, ion = make_user("ana"), make_user("ion")
    services.pool_join(user=ana, game="americana", players=2, length=101, fill_with_bots=False)
    entry = services.pool_join(user=ion, game="americana", players=2, length=101, fill_with_bots=False)
    lobby = client.get("/tables/").content.decode()
    assert 'data-testid="site-counts"' in lobby and 'content="/ws/me/?lang=en&counts=1"' in lobby
    assert f'href="/tables/{entry.table_id}/"' in lobby.split('data-testid="live-now"')[1]
    assert "0 watching" in lobby
    assert 'data-testid="site-counts"' in client.get("/").content.decode()
