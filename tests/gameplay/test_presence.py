"""Presence fades by itself: a connection whose heartbeat stops is gone after the TTL, on Redis and
on the embedded mode's in-process cache alike."""

import math
import time

import pytest

from gameplay import presence

TTL = 1.0


@pytest.fixture(params=["redis", "in-process"])
def store(request, settings):
    settings.PRESENCE_TTL_SECONDS = TTL
    if request.param == "in-process":
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    elif not settings.CACHES["default"]["BACKEND"].endswith("RedisCache"):
        pytest.skip("Needs REDIS_URL.")
    expected = presence.RedisStore if request.param == "redis" else presence.CacheStore
    assert isinstance(presence._store(), expected)
    return request.param


def seat_key() -> tuple[int, int]:
    """A seat no other test touches (the tables are not in the database: presence needs none)."""
    return time.time_ns() % 10**9, 0


def test_a_seat_never_seen_is_away_for_ever(store):
    table, seat = seat_key()
    assert presence.connections(table, seat) == 0
    assert presence.away_seconds(table, seat) == math.inf


def test_connections_count_until_the_last_one_leaves(store):
    table, seat = seat_key()
    presence.arrive(table, seat, "phone")
    presence.arrive(table, seat, "laptop")
    assert presence.connections(table, seat) == 2
    assert presence.away_seconds(table, seat) is None
    assert presence.leave(table, seat, "phone") == 1
    assert presence.away_seconds(table, seat) is None
    assert presence.leave(table, seat, "laptop") == 0
    assert 0 <= presence.away_seconds(table, seat) < TTL
    presence.arrive(table, seat, "phone")  # back: present again, the count starts over
    assert presence.away_seconds(table, seat) is None
    assert presence.leave(table, seat, "phone") == 0


def test_a_connection_whose_heartbeat_stops_is_gone_after_the_ttl(store):
    table, seat = seat_key()
    presence.arrive(table, seat, "dead-server")
    presence.arrive(table, seat, "live-server")
    time.sleep(TTL * 0.6)
    presence.refresh_many([(table, seat, "live-server")])
    time.sleep(TTL * 0.6)
    # Only the connection still beating counts.
    assert presence.connections(table, seat) == 1
    assert presence.away_seconds(table, seat) is None
    time.sleep(TTL * 0.6)
    assert presence.connections(table, seat) == 0
    # Away since the last time a connection was heard of, not since it faded.
    assert presence.away_seconds(table, seat) >= TTL
    # The page that leaves later (on another server) makes the seat away from then on.
    assert presence.leave(table, seat, "live-server") == 0
    assert presence.away_seconds(table, seat) < TTL


def test_a_heartbeat_puts_back_a_connection_that_had_faded(store):
    table, seat = seat_key()
    presence.arrive(table, seat, "tab")
    time.sleep(TTL * 1.2)
    assert presence.connections(table, seat) == 0
    presence.refresh_many([(table, seat, "tab")])
    assert presence.connections(table, seat) == 1
    assert presence.leave(table, seat, "tab") == 0


def test_a_process_heartbeat_stamps_every_seat_it_has_open_at_once(store):
    table, seat = seat_key()
    presence.arrive(table, seat, "phone")
    presence.arrive(table, seat + 1, "laptop")
    presence.arrive(table + 1, seat, "tablet")
    time.sleep(TTL * 0.6)
    presence.refresh_many([(table, seat, "phone"), (table, seat + 1, "laptop")])
    time.sleep(TTL * 0.6)
    # The two stamped stay; the third, not stamped, faded.
    assert presence.connections(table, seat) == 1
    assert presence.connections(table, seat + 1) == 1
    assert presence.connections(table + 1, seat) == 0
    presence.refresh_many([])  # a process with no seat open: nothing to stamp, nothing fails
