import pytest
from django.core.cache import caches

from tests.conftest import forget_budgets


@pytest.fixture(autouse=True)
def fresh_social_budgets() -> None:
    """Each test starts with full budgets for requests and pool joins (a test database made anew
    hands out the same ids again, and the buckets of an earlier run's people live on in Redis), and
    with no counts kept from an earlier test."""
    from social import selectors

    cache = caches["default"]
    cache.delete_many([selectors.COUNTS_KEY, selectors.POOLS_KEY])
    for pattern in ("social-requests:*", "pool-joins:*"):
        forget_budgets(pattern)
