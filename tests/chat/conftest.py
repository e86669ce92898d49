import pytest
from django.core.cache import caches


@pytest.fixture(autouse=True)
def fresh_chat_budgets():
    """Every test starts with full chat budgets (they live in the shared cache)."""
    cache = caches["default"]
    cache.delete_pattern("*limit:chat*") if hasattr(cache, "delete_pattern") else cache.clear()
    yield
