"""A table set to fast bots: the host asks for it on the new-table form, the table keeps it, and
its bots' moves are queued a few tenths of a second out instead of a human-like second or so."""

import pytest
from django.urls import reverse

from gameplay import scheduling
from gameplay import services as gameplay_services
from gameplay.models import Match
from gameplay.services.store import seats_to_act
from tables import services as table_services
from tables.models import Table
from tests.tables.test_views import create_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def paces(settings):
    settings.BOT_PAUSE_SECONDS = (0.6, 1.5)
    settings.FAST_BOT_PAUSE_SECONDS = (0.2, 0.4)


def bot_seat(ana, *, fast_bots: bool) -> scheduling.SeatToAct:
    """Seat 1 of a started two-player table of Ana's with a bot in it, as the scheduler reads it."""
    table = gameplay_services.table_create(
        host=ana, game="americana", options={"players": 2}, turn_clock=0, is_private=True, fast_bots=fast_bots
    )
    table_services.bot_add(table_id=table.pk, by=ana, position=1, level="easy")
    return seats_to_act(Match.objects.get(table=table))[1]


@pytest.mark.parametrize(("fast_bots", "low", "high"), [(True, 0.2, 0.4), (False, 0.6, 1.5)])
def test_a_bots_move_is_planned_at_the_tables_pace(ana, paces, fast_bots, low, high):
    seat = bot_seat(ana, fast_bots=fast_bots)
    assert seat.bot_plays and seat.fast_bots is fast_bots
    for _try in range(20):
        plan = scheduling.plan(awaiting_deal=False, seat=seat)
        assert plan.due == Match.Due.BOT and plan.due_in == high and low <= plan.countdown <= high


def test_the_new_table_form_and_the_tables_options_carry_fast_bots(client, ana):
    client.force_login(ana)
    response = client.post(reverse("gameplay:table_create"), create_form(fast_bots="on"))
    table = Table.objects.get(host=ana)
    assert response.status_code == 302 and table.fast_bots
    page = client.get(reverse("gameplay:table", args=[table.pk]), headers={"Accept-Language": "en"}).text
    assert "fast bots" in page


def test_play_now_with_fast_bots(client, ana):
    client.force_login(ana)
    client.post(reverse("gameplay:play_now"), {"game": "americana", "fast_bots": "on"})
    client.post(reverse("gameplay:play_now"), {"game": "classic"})
    assert dict(Table.objects.values_list("game", "fast_bots")) == {"americana": True, "classic": False}
