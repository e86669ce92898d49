"""A private table seats only whom it invites: the host, a player a rematch seat is kept for, or
whoever holds the invitation link. Every way to a seat is tried by a stranger and by the invited."""

import pytest
from django.urls import reverse

from gameplay import services as gameplay_services
from gameplay.models import Match
from tables import services
from tables.models import Seat, Table
from tests.factories import make_user

REFUSAL = "This table is private: ask its host for the invitation link."


def private_table(host, players: int = 3) -> Table:
    return gameplay_services.table_create(
        host=host, game="americana", options={"players": players}, turn_clock=0, is_private=True
    )


def seated(table: Table) -> set[str]:
    return set(table.seats.filter(user__isnull=False).values_list("user__username", flat=True))


@pytest.mark.parametrize("position", [None, 1])
def test_a_stranger_cannot_sit_through_the_service(ana, position):
    table = private_table(ana)
    with pytest.raises(services.TableError, match=REFUSAL):
        services.seat_take(table_id=table.pk, user=make_user("eva"), position=position)
    with pytest.raises(services.TableError, match=REFUSAL):
        services.seat_take(table_id=table.pk, user=make_user("dan"), position=position, token="forged-token")
    assert seated(table) == {"ana"}


def test_a_stranger_posting_to_the_sit_url_is_refused_and_the_table_stays_closed_to_them(client, ana):
    table = private_table(ana)
    client.force_login(make_user("eva"))
    for data in ({}, {"position": "1"}):
        response = client.post(reverse("tables:sit", args=[table.pk]), data, follow=True)
        assert REFUSAL in response.text
        assert response.status_code == 403, "the table page (and its invitation link) stays closed"
        assert table.invite_token not in response.text
    assert seated(table) == {"ana"}


def test_the_invitation_link_seats_whoever_holds_it(client, ana, ion):
    table = private_table(ana)
    client.force_login(ion)
    response = client.get(reverse("tables:invitation", args=[table.invite_token]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("gameplay:table", args=[table.pk])
    assert response.status_code == 200
    assert seated(table) == {"ana", "ion"}


def test_the_service_seats_whoever_holds_the_token(ana, ion):
    table = private_table(ana)
    seat = services.seat_take(table_id=table.pk, user=ion, position=2, token=table.invite_token)
    assert seat.position == 2 and seated(table) == {"ana", "ion"}


def test_a_public_table_seats_anyone(client, ana, ion):
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    client.force_login(ion)
    client.post(reverse("tables:sit", args=[table.pk]), {"position": "1"})
    assert seated(table) == {"ana", "ion"}


def test_the_host_sits_at_their_own_table_without_the_link(client, ana):
    table = private_table(ana)
    assert seated(table) == {"ana"}
    client.force_login(ana)
    assert client.get(reverse("gameplay:table", args=[table.pk])).status_code == 200
    # Their seat freed (a moderator put a bot there, then it left): the host may sit again.
    Seat.objects.filter(table=table, position=0).update(user=None)
    client.post(reverse("tables:sit", args=[table.pk]), {"position": "0"})
    assert seated(table) == {"ana"}


def test_a_rematch_seat_kept_for_a_player_takes_them_without_the_link(client, ana, ion):
    table = private_table(ana, players=3)
    services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    services.bot_add(table_id=table.pk, by=ana, position=2, level="easy")
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    Match.objects.filter(table=table).update(status=Match.Status.FINISHED)
    rematch = gameplay_services.rematch_offer(table_id=table.pk, by=ana)
    assert rematch.is_private and rematch.seats.get(position=1).reserved_for == ion
    Seat.objects.filter(table=rematch, position=2).update(bot_level="")  # a free seat a stranger could want
    eva = make_user("eva")
    with pytest.raises(services.TableError, match=REFUSAL):
        services.seat_take(table_id=rematch.pk, user=eva, position=2)
    client.force_login(ion)
    client.post(reverse("tables:sit", args=[rematch.pk]), {"position": "1"})
    assert seated(rematch) == {"ana", "ion"}


def test_a_rematch_offer_seats_the_player_it_kept_a_seat_for(ana, ion):
    table = private_table(ana, players=2)
    services.seat_take(table_id=table.pk, user=ion, token=table.invite_token)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    Match.objects.filter(table=table).update(status=Match.Status.FINISHED)
    rematch = gameplay_services.rematch_offer(table_id=table.pk, by=ion)
    assert gameplay_services.rematch_offer(table_id=table.pk, by=ana) == rematch
    assert seated(rematch) == {"ana", "ion"}
