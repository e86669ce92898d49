"""A budget shared by every process (``accounts.limits.spend``) can be charged after the fact: taken
whatever it holds, it goes below zero, and refills from there."""

from collections.abc import Iterator

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from accounts import limits

HOURLY = 1 / 3600
"""One token an hour: nothing refills while a test runs."""


@pytest.fixture
def bucket() -> Iterator[str]:
    key = "test-debt"
    limits.forget(key)
    yield key
    limits.forget(key)


def test_a_charge_owed_takes_the_bucket_below_zero_and_it_refills_from_there(bucket):
    assert limits.spend(bucket, rate=HOURLY, burst=3, cost=2) == 0
    assert limits.spend(bucket, rate=HOURLY, burst=3, cost=5, owe=True) == 0  # taken: 1 - 5 = -4
    in_debt = limits.spend(bucket, rate=HOURLY, burst=3, cost=0)
    assert 4 * 3600 - 5 < in_debt <= 4 * 3600  # four hours until it holds nothing again
    assert 5 * 3600 - 5 < limits.spend(bucket, rate=HOURLY, burst=3, cost=1) <= 5 * 3600  # nothing taken


def test_a_bucket_in_debt_is_kept_until_it_is_full_again(bucket):
    """Kept only as long as a full bucket needs to empty, a debt would be forgiven early."""
    limits.spend(bucket, rate=1.0, burst=2, cost=30, owe=True)
    cache = caches["default"]
    redis_key = cache.make_and_validate_key(f"limit:{bucket}")
    if isinstance(cache, RedisCache):  # the key's own time to live: until 2 tokens are back from -28
        assert 29 <= cache._cache.get_client().ttl(redis_key) <= 31
    assert limits.spend(bucket, rate=1.0, burst=2, cost=0) > 27
