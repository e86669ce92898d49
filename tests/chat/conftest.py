import pytest


def open_table(host, *, private: bool = False):
    """A waiting table of Americana for two, the host in seat 0, no match yet."""
    from gameplay import services as gameplay_services

    return gameplay_services.table_create(
        host=host, game="americana", options={"players": 2}, turn_clock=45, is_private=private
    )


def finish_matches(user, count: int, *, against_bots: bool = False) -> None:
    """``count`` finished matches that ``user`` played against another person (or, ``against_bots``,
    against a bot alone): rows written directly, what ``chat.selectors.may_type`` counts, without
    playing them."""
    from gameplay.models import Match, Participant
    from tables.models import BotLevel, Table
    from tests.factories import make_user

    table = Table.objects.create(game="americana", options={"players": 2}, host=user, status="closed")
    opponent = None if against_bots else make_user(f"{user.username}-opponent-{Table.objects.count()}")
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
        if opponent is None:
            Participant.objects.create(match=match, seat=1, bot_level=BotLevel.EASY)
        else:
            Participant.objects.create(match=match, seat=1, user=opponent, name=opponent.username)


@pytest.fixture
def veteran(settings):
    """Makes a person whose account may type (enough finished matches)."""

    def make(user):
        finish_matches(user, settings.CHAT_FREE_TEXT_MATCHES)
        return user

    return make
