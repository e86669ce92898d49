"""Who is rated (``tables.rated``), on PostgreSQL: the farming of a rating with throwaway accounts at
private tables, and each rule a rated match keeps: strangers can reach it, a turn clock, people only,
established accounts, and at most ``RATED_PAIR_DAILY`` rated matches a day of the same two people. The
label a table shows is what the ratings app does."""

import threading
import time

import pytest
from django.db import connection
from django.urls import reverse

from gameplay import services as gameplay_services
from gameplay.models import Match
from privacy import services as privacy_services
from ratings import services as rating_services
from ratings.models import RatedMatch, Rating, RatingChange
from social import services as social_services
from tables import services as table_services
from tables.models import Casual, Table
from tables.rated import casual_reason
from tables.signals import table_filled
from tests.factories import PASSWORD, make_user
from tests.history.helpers import play_out
from tests.ratings.helpers import rated_and_played, rated_table_match
from tests.social.test_pool_lobby_race import WAIT_SECONDS, in_thread, waiting_for_a_lock
from tests.tables.test_views import create_form

TWO_PLAYER_CLASSIC = {"game": "classic", "classic_players": "2", "match": "points8"}


def opened_by_form(client, host, **fields) -> Table:
    """A table the host opens with the new-table form, "Rated" ticked (under the form's old name too:
    whatever the form calls it, the host asked for rated) unless ``fields`` untick it (None)."""
    data = {**TWO_PLAYER_CLASSIC, "rated": "on", "is_rated": "on", **fields}
    client.force_login(host)
    response = client.post(
        reverse("gameplay:table_create"),
        create_form(**{name: value for name, value in data.items() if value is not None}),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return Table.objects.filter(host=host).order_by("-pk").first()


def test_a_host_farming_ten_fresh_accounts_at_invited_tables_keeps_their_rating(db, client):
    """The issue's farming, end to end: each throwaway account opens the host's link (private tables,
    and public ones too), plays a few moves, then closes itself; the stand-in bot plays on to the end
    and the leaver ranks last. The host's rating never moves, and every table said "casual"."""
    host = make_user("host")
    before = Rating.objects.filter(user=host).count()
    for index in range(10):
        joiner = make_user(f"throwaway{index}", fresh=True)
        table = opened_by_form(client, host, **({"is_private": "on"} if index % 2 == 0 else {}))
        client.force_login(joiner)
        client.get(reverse("tables:invitation", args=[table.invite_token]))
        match = Match.objects.get(table=table)
        play_out(match, seed=index, moves=3)
        privacy_services.account_close(user=joiner, password=PASSWORD)
        assert play_out(match, seed=index).status == Match.Status.FINISHED
        table.refresh_from_db()
        assert not table.is_rated
        assert table.casual_because == (Casual.PRIVATE if index % 2 == 0 else Casual.NEWCOMER)
        client.force_login(host)
        page = client.get(reverse("gameplay:table", args=[table.pk])).text
        assert "A casual match: no rating moved" in page and 'data-testid="rating-changes-slot"' not in page
        assert rating_services.match_rate(match_id=match.pk) is False
    rating_services.catch_up()
    rating_services.ratings_rebuild()
    assert not RatingChange.objects.filter(user=host).exists() and not RatedMatch.objects.exists()
    assert Rating.objects.filter(user=host).count() == before == 0


def test_the_form_says_a_private_table_is_casual_whatever_is_ticked(db, client):
    ana = make_user("ana")
    client.force_login(ana)
    page = client.get(reverse("gameplay:table_create")).text
    assert 'data-testid="private-casual"' in page and "A private table is casual" in page
    private = opened_by_form(client, ana, is_private="on")
    assert (private.is_rated, private.casual_because) == (False, Casual.PRIVATE)
    public = opened_by_form(client, ana)
    assert (public.is_rated, public.casual_because) == (True, "")
    casual = opened_by_form(client, ana, rated=None, is_rated=None)
    assert (casual.is_rated, casual.casual_because) == (False, Casual.ASKED)


def test_a_table_without_a_turn_clock_is_casual():
    """Only private tables may go without a clock (a constraint), but the rule stands on its own."""
    table = Table(game="classic", options={"players": 2}, turn_clock=0, is_private=False, rated_wanted=True)
    assert casual_reason(table, []) == Casual.NO_CLOCK
    table.turn_clock = 45
    assert casual_reason(table, []) == ""


def test_a_newcomer_at_a_public_table_makes_it_casual_and_is_told_before_sitting(db, client):
    ana, eva, ion = make_user("ana"), make_user("eva"), make_user("ion", fresh=True)
    table = opened_by_form(client, ana, classic_players="3")
    assert table.is_rated
    client.force_login(ion)
    page = client.get(reverse("gameplay:table", args=[table.pk])).text
    assert 'data-testid="casual-if-seated"' in page and "If you sit down, this match is casual" in page
    table_services.seat_take(table_id=table.pk, user=ion)
    table.refresh_from_db()
    assert (table.is_rated, table.casual_because) == (False, Casual.NEWCOMER)
    assert "casual" in client.get(reverse("tables:lobby")).text
    table_services.seat_leave(table_id=table.pk, user=ion)
    table.refresh_from_db()
    assert table.is_rated
    client.force_login(eva)
    assert 'data-testid="casual-if-seated"' not in client.get(reverse("gameplay:table", args=[table.pk])).text


def test_the_same_two_people_are_rated_three_times_a_day_then_casual_and_told_before(db, client):
    ana, ion, eva = make_user("ana"), make_user("ion"), make_user("eva")
    for seed in range(3):
        rated_and_played("classic", [ana, ion], {"match": "points8"}, seed=seed)
    assert Rating.objects.get(user=ana, game="classic").matches == 3
    fourth = opened_by_form(client, ana)
    assert fourth.is_rated  # ana alone so far
    client.force_login(ion)
    page = client.get(reverse("gameplay:table", args=[fourth.pk])).text
    assert "If you sit down, this match is casual" in page and "3 rated matches together" in page
    table_services.seat_take(table_id=fourth.pk, user=ion)
    fourth.refresh_from_db()
    assert (fourth.is_rated, fourth.casual_because) == (False, Casual.PAIR_DAILY)
    match = play_out(Match.objects.get(table=fourth))
    assert rating_services.match_rate(match_id=match.pk) is False
    assert Rating.objects.get(user=ana, game="classic").matches == 3
    # With someone else, ana is rated still.
    rated_and_played("classic", [ana, eva], {"match": "points8"})
    assert Rating.objects.get(user=ana, game="classic").matches == 4


def test_a_rematch_past_the_daily_limit_says_casual_in_its_waiting_room(db, client):
    ana, ion = make_user("ana"), make_user("ion")
    for seed in range(3):
        match = rated_and_played("classic", [ana, ion], {"match": "points8"}, seed=seed)
    rematch = gameplay_services.rematch_offer(table_id=match.table_id, by=ana)
    assert (rematch.is_rated, rematch.casual_because) == (False, Casual.PAIR_DAILY)
    client.force_login(ion)
    page = client.get(reverse("gameplay:table", args=[rematch.pk])).text
    assert 'data-testid="casual-why"' in page and "3 rated matches together" in page


def test_a_public_table_with_a_bot_is_casual(db):
    ana, ion = make_user("ana"), make_user("ion")
    match = play_out(rated_table_match("classic", [ana, ion], {"players": 3}))
    assert (match.table.is_rated, match.table.casual_because) == (False, Casual.BOTS)
    assert rating_services.match_rate(match_id=match.pk) is False


@pytest.mark.django_db(transaction=True)
def test_a_pool_table_bots_filled_reads_casual_and_rates_nothing(settings):
    settings.POOL_BOT_FILL_SECONDS = 0
    ana, ion = make_user("ana"), make_user("ion")
    for person in (ana, ion):
        entry = social_services.pool_join(
            user=person, game="classic", players=3, length="points8", fill_with_bots=True
        )
    table = Table.objects.get(pk=entry.table_id)
    assert table.seats.filter(bot_level="").exclude(user=None).count() >= 1
    assert table.seats.exclude(bot_level="").exists()
    assert (table.is_rated, table.casual_because) == (False, Casual.BOTS)
    match = play_out(Match.objects.get(table=table))
    assert rating_services.match_rate(match_id=match.pk) is False


@pytest.mark.django_db(transaction=True)
def test_the_pool_pairs_established_accounts_at_rated_tables_and_newcomers_and_casual_askers_apart():
    ana, bob, carol = make_user("ana"), make_user("bob"), make_user("carol")
    ion, zoe = make_user("ion", fresh=True), make_user("zoe", fresh=True)

    def join(person, casual: bool = False):
        return social_services.pool_join(
            user=person, game="americana", players=2, length=101, fill_with_bots=False, casual=casual
        )

    assert join(ana).table_id is None
    assert join(ion).table_id is None, "a newcomer is never seated with an established account"
    rated = Table.objects.get(pk=join(bob).table_id)
    assert {seat.user_id for seat in rated.seats.all()} == {ana.pk, bob.pk} and rated.is_rated
    casual = Table.objects.get(pk=join(zoe).table_id)
    assert {seat.user_id for seat in casual.seats.all()} == {ion.pk, zoe.pk}
    assert (casual.is_rated, casual.casual_because) == (False, Casual.ASKED)
    assert join(carol, casual=True).table_id is None
    dan = make_user("dan", fresh=True)
    asked = Table.objects.get(pk=join(dan).table_id)
    assert {seat.user_id for seat in asked.seats.all()} == {carol.pk, dan.pk} and not asked.is_rated


@pytest.mark.django_db(transaction=True)
def test_two_tables_of_the_same_two_people_starting_at_once_count_each_other(settings):
    """Ana joins Ion's table while Ion joins Ana's, each on a connection of its own, one daily rated
    match allowed: one table is rated, the other casual, never both."""
    settings.RATED_PAIR_DAILY = 1
    ana, ion = make_user("ana"), make_user("ion")
    tables = [
        gameplay_services.table_create(
            host=host, game="classic", options={"players": 2}, turn_clock=45, is_private=False, rated=True
        )
        for host in (ana, ion)
    ]
    first_dealing, go_on = threading.Event(), threading.Event()

    def hold_the_first(sender, *, table, **kwargs) -> None:
        if threading.current_thread().name == "first":
            first_dealing.set()
            assert go_on.wait(WAIT_SECONDS)

    table_filled.connect(hold_the_first, sender=Table, dispatch_uid="test.hold_the_first")
    outcome: dict = {}
    try:
        first = in_thread(lambda: table_services.seat_take(table_id=tables[0].pk, user=ion), outcome, "first")
        assert first_dealing.wait(WAIT_SECONDS)
        second = in_thread(
            lambda: table_services.seat_take(table_id=tables[1].pk, user=ana), outcome, "second"
        )
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            (me,) = cursor.fetchone()
        deadline = time.monotonic() + WAIT_SECONDS
        while second.is_alive() and not waiting_for_a_lock(me) and time.monotonic() < deadline:
            time.sleep(0.01)
        go_on.set()
        first.join(WAIT_SECONDS)
        second.join(WAIT_SECONDS)
    finally:
        go_on.set()
        table_filled.disconnect(dispatch_uid="test.hold_the_first", sender=Table)
    assert not first.is_alive() and not second.is_alive(), outcome
    started = Table.objects.filter(pk__in=[table.pk for table in tables], status=Table.Status.PLAYING)
    assert started.count() == 2
    assert sorted(started.values_list("is_rated", flat=True)) == [False, True]
    assert Table.objects.get(pk=tables[1].pk).casual_because == Casual.PAIR_DAILY
