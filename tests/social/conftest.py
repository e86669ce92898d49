import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache


@pytest.fixture(autouse=True)
def fresh_social_budgets() -> None:
    """Each test starts with full budgets for requests and pool joins (a test database made anew
    hands out the same ids again, and the buckets of an earlier run's people live on in Redis), and
    with no counts kept from an earlier test."""
    from social import selectors

    cache = caches["default"]
    cache.delete_many([selectors.COUNTS_KEY, selectors.POOLS_KEY])
    if not isinstance(cache, RedisCache):
        cache.clear()
        return
    client = cache._cache.get_client(write=True)
    for pattern in ("limit:social-requests:*", "limit:pool-joins:*"):
        keys = list(client.scan_iter(match=f"*{pattern}"))
        if keys:
            client.delete(*keys)
