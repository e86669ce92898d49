"""Tournaments made straight in the database, established people with ratings, and matches played to
their end through gameplay, for the service, fault and calendar tests."""

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from bots.policies import choose
from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match, Move
from ratings.models import Rating
from tables.models import Table
from tests.factories import make_user
from tournaments.models import Entry, Kind, Tournament

CLASSIC_QUICK = {"players": 2, "match": "games1", "lead": "rotate"}
"""One deal of classic at two seats: a tournament match of a few dozen moves."""


def established(name: str, *, rating: int | None = None, game: str = "classic", matches: int = 0):
    """An account that may play rated tournaments, with a rating in ``game`` when given."""
    user = make_user(name)
    if rating is not None or matches:
        Rating.objects.create(user=user, game=game, shown=rating or 1500, matches=matches)
    return user


def tournament(
    *,
    kind: str = Kind.ARENA,
    status: str = Tournament.Status.UPCOMING,
    options: dict | None = None,
    game: str = "classic",
    minutes: int = 30,
    rounds: int = 0,
    starts_in: timedelta = timedelta(minutes=5),
    name: str = "",
    **fields,
) -> Tournament:
    """A public tournament of quick classic matches, starting ``starts_in`` from now."""
    starts_at = timezone.now() + starts_in
    return Tournament.objects.create(
        name=name or f"{kind} cup",
        kind=kind,
        game=game,
        options=options or CLASSIC_QUICK,
        minutes=minutes,
        rounds=rounds,
        status=status,
        starts_at=starts_at,
        ends_at=starts_at + timedelta(minutes=minutes) if kind == Kind.ARENA else None,
        started_at=starts_at if status == Tournament.Status.RUNNING else None,
        **fields,
    )


def entered(event: Tournament, user, *, rating: int = 1500, **fields) -> Entry:
    """``user`` in ``event`` as a join would have left them, their page open now."""
    now = timezone.now()
    values = {"rating": rating, "joined_at": now, "seen_at": now, **fields}
    return Entry.objects.create(tournament=event, user=user, **values)


def play_out(table_id: int, seed: int = 0) -> Match:
    """Play the table's match to its end, each seat making the easy bot's choice among the engine's
    legal actions, through ``gameplay.services.act`` (so ``match_finished`` fires as on the site)."""
    rng = random.Random(seed)
    match = Match.objects.get(table_id=table_id)
    game = get_game(match.game)
    while True:
        match.refresh_from_db()
        state = game.state_from_json(match.state)
        if match.status != Match.Status.PLAYING:
            return match
        if game.awaiting_deal(state):
            gameplay_services.round_deal_next(match_id=match.pk, expected_version=match.version)
            continue
        seat = game.to_act(state)
        legal = [game.action_to_json(action) for action in game.legal_actions(state)]
        action = choose(game.view(state, seat), legal, "easy", rng)
        gameplay_services.act(match_id=match.pk, seat=seat, action=action, actor=Move.Actor.PLAYER)


def open_tables(event: Tournament) -> dict[int, list[int]]:
    """The event's tables not over yet: table id → user ids by seat."""
    tables: dict[int, list[int]] = {}
    for pairing in event.pairings.filter(table__status__in=Table.NOT_OVER).order_by("pk"):
        tables[pairing.table_id] = pairing.seats
    return tables


@contextmanager
def held_by_another_session(sql: str, params: list | None = None) -> Iterator[None]:
    """A second database session runs ``sql`` (a lock) and keeps its transaction open until the block
    ends, as a slow pairing, score or disk would."""
    holder = connections.create_connection("default")
    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            cursor.execute(sql, params)
        yield
    finally:
        holder.rollback()
        holder.close()


def waiting_for_lock(reading: str) -> list[int]:
    """The database sessions waiting for a lock while running a statement on the ``reading`` table."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND query LIKE %s",
            [f'%"{reading}"%'],
        )
        return [pid for (pid,) in cursor.fetchall()]


def closing_connection(work: Callable[..., object]) -> Callable[..., None]:
    """``work`` for a thread of its own, its database connection closed when it ends."""

    def run(**kwargs) -> None:
        try:
            work(**kwargs)
        finally:
            connection.close()

    return run


@pytest.fixture
def people(transactional_db):
    """Six established people rated 1900 down to 1400 (a hundred apart)."""
    return [established(f"player{index}", rating=1900 - 100 * index) for index in range(6)]


@pytest.fixture
def running_arena(transactional_db):
    """An arena of quick two-seat classic matches that started a minute ago and ends in half an hour."""
    return tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))


@pytest.fixture
def swiss_event(transactional_db):
    """A Swiss event of three rounds of quick two-seat classic matches, due to start now."""
    return tournament(kind=Kind.SWISS, rounds=3, minutes=10, starts_in=timedelta(seconds=-1))
