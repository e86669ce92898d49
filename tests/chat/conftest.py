import pytest
from django.core.cache import caches


@pytest.fixture(autouse=True)
def fresh_chat_budgets():
    """Every test starts with full chat budgets (they live in the shared cache)."""
    cache = caches["default"]
    cache.delete_pattern("*limit:chat*") if hasattr(cache, "delete_pattern") else cache.clear()
    yield


def open_table(host, *, private: bool = False):
    """A waiting table of Americana for two, the host in seat 0, no match yet."""
    from gameplay import services as gameplay_services

    return gameplay_services.table_create(
        host=host, game="americana", options={"players": 2}, turn_clock=45, is_private=private
    )


def finish_matches(user, count: int) -> None:
    """``count`` finished matches with people that ``user`` played (rows written directly: what
    ``chat.selectors.may_type`` counts, without playing them)."""
    from gameplay.models import Match, Participant
    from tables.models import Table

    table = Table.objects.create(game="americana", options={"players": 2}, host=user, status="closed")
    for _ in range(count):
        match = Match.objects.create(
            table=table,
            game="americana",
            options={"players": 2},
            seed=1,
            state={},
            status=Match.Status.FINISHED,
        )
        Participant.objects.create(match=match, seat=0, user=user, name=user.username)


@pytest.fixture
def veteran(settings):
    """Makes a person whose account may type (enough finished matches)."""

    def make(user):
        finish_matches(user, settings.CHAT_FREE_TEXT_MATCHES)
        return user

    return make
