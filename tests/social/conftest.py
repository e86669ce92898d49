import pytest
from django.core.cache import caches


@pytest.fixture(autouse=True)
def fresh_social_counts() -> None:
    """Each test starts with no counts kept from an earlier test (its budgets are full again too:
    ``tests.conftest.fresh_budgets``)."""
    from social import selectors

    caches["default"].delete_many([selectors.COUNTS_KEY, selectors.POOLS_KEY])
