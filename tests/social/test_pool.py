"""The pairing pool on PostgreSQL: joining, pairing by rating, bots after the wait, Cancel, one pool
and one table at a time, and the page that looks staying in the pool while it is open."""

from datetime import timedelta

import pytest
from django.utils import timezone

from gameplay.models import Match
from ratings.models import Rating
from social import services
from social.models import PoolEntry
from tables.models import Table
from tests.factories import make_user


def people(count: int, prefix: str = "p") -> list:
    return [make_user(f"{prefix}{index}") for index in range(count)]


def join(user, players: int = 2, game: str = "americana", length=101, bots: bool = False) -> PoolEntry:
    return services.pool_join(user=user, game=game, players=players, length=length, fill_with_bots=bots)


@pytest.mark.django_db(transaction=True)
def test_two_people_looking_for_the_same_game_are_seated_at_one_rated_public_table(
    django_capture_on_commit_callbacks,
):
    ana, ion = people(2)
    assert join(ana).table_id is None
    entry = join(ion)
    assert entry.table_id is not None
    table = Table.objects.get(pk=entry.table_id)
    assert table.status == Table.Status.PLAYING and table.is_rated and not table.is_private
    assert {seat.user_id for seat in table.seats.all()} == {ana.pk, ion.pk}
    assert PoolEntry.objects.get(user=ana).table_id == table.pk
    assert Match.objects.filter(table=table, status=Match.Status.PLAYING).exists()


@pytest.mark.django_db(transaction=True)
def test_different_games_or_options_are_different_pools():
    ana, ion, eva = people(3)
    join(ana, length=101)
    join(ion, length=301)
    join(eva, game="classic", length="points8")
    assert not PoolEntry.objects.filter(table__isnull=False).exists()
    assert PoolEntry.objects.values("pool").distinct().count() == 3


@pytest.mark.django_db(transaction=True)
def test_the_closest_ratings_are_paired_first():
    low, high, near_low = people(3)
    Rating.objects.create(user=high, game="americana", shown=2200)
    join(low)
    join(high)
    assert not PoolEntry.objects.filter(table__isnull=False).exists()  # 700 apart: not at once
    entry = join(near_low)
    assert {seat.user_id for seat in Table.objects.get(pk=entry.table_id).seats.all()} == {
        low.pk,
        near_low.pk,
    }
    assert PoolEntry.objects.get(user=high).table_id is None


@pytest.mark.django_db(transaction=True)
def test_bots_take_the_seats_nobody_took_once_the_fill_time_has_passed(settings):
    settings.POOL_BOT_FILL_SECONDS = 5
    ana, ion, eva = people(3)
    for person in (ana, ion, eva):
        join(person, players=4, bots=True)
    assert not PoolEntry.objects.filter(table__isnull=False).exists()
    PoolEntry.objects.update(joined_at=timezone.now() - timedelta(seconds=6))
    assert services.pool_tick() == 1
    table = Table.objects.get(pk=PoolEntry.objects.get(user=ana).table_id)
    seats = list(table.seats.all())
    assert sum(seat.is_bot for seat in seats) == 1
    assert {seat.user_id for seat in seats if seat.user_id} == {ana.pk, ion.pk, eva.pk}
    assert table.status == Table.Status.PLAYING


@pytest.mark.django_db(transaction=True)
def test_one_pool_at_a_time_and_never_while_at_a_table():
    ana, ion = people(2)
    join(ana, length=101)
    join(ana, length=501)
    assert PoolEntry.objects.filter(user=ana).count() == 1
    assert PoolEntry.objects.get(user=ana).options["target"] == 501
    entry = join(ion, length=501)
    assert entry.table_id is not None
    # Seated by the pool: joining again only points the page at that table.
    assert join(ion).table_id == entry.table_id
    services.pool_opened(user=ion)
    with pytest.raises(services.SocialError, match="already at a table"):
        join(ion)
    assert not PoolEntry.objects.filter(user=ion).exists()


@pytest.mark.django_db(transaction=True)
def test_cancel_leaves_the_pool_and_a_page_gone_for_ten_seconds_does_too():
    ana, ion, eva = people(3)
    join(ana)
    assert services.pool_leave(user=ana) is None
    join(ion)
    PoolEntry.objects.filter(user=ion).update(seen_at=timezone.now() - timedelta(seconds=11))
    entry = join(eva)
    assert entry.table_id is None  # ion's page is gone: nobody to pair eva with
    services.pool_tick()
    assert not PoolEntry.objects.filter(user=ion).exists()
    services.pool_seen(user_ids=[eva.pk])
    assert PoolEntry.objects.get(user=eva).seen_at > timezone.now() - timedelta(seconds=2)


@pytest.mark.django_db(transaction=True)
def test_people_who_blocked_each_other_are_not_paired():
    ana, ion = people(2)
    services.block(user=ana, other=ion)
    join(ana)
    assert join(ion).table_id is None
    assert services.pool_tick() == 0


@pytest.mark.django_db(transaction=True)
def test_options_the_pool_does_not_offer_are_refused_with_a_reason():
    (ana,) = people(1)
    with pytest.raises(services.SocialError, match="how long"):
        join(ana, length=999)
    with pytest.raises(services.SocialError, match="how many"):
        join(ana, players=7)
    assert not PoolEntry.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_double_click_on_join_makes_one_entry():
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    (ana,) = people(1)

    def click():
        try:
            return join(ana).pk
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        entries = set(pool.map(lambda _: click(), range(4)))
    assert len(entries) == 1
    assert PoolEntry.objects.filter(user=ana).count() == 1
