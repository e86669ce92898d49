"""Matches between real seated people, for the gameplay tests."""

import time

from django.db import connection

from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match
from tables import services as table_services
from tests.factories import make_user


def human_match(
    game: str = "americana",
    players: int = 2,
    options: dict | None = None,
    clock: int = 0,
    prefix: str = "",
    pace_hours: int = 0,
):
    """A started match with a person in every seat (at own pace with ``pace_hours``); returns (match,
    users by seat)."""
    users = [make_user(f"{prefix}p{game[:2]}{index}") for index in range(players)]
    table = gameplay_services.table_create(
        host=users[0],
        game=game,
        options={"players": players, **(options or {})},
        turn_clock=clock,
        is_private=clock == 0,
        pace_hours=pace_hours,
    )
    for user in users[1:]:
        table_services.seat_take(table_id=table.pk, user=user, token=table.invite_token)
    return Match.objects.get(table=table), users


def live_state(match: Match):
    match.refresh_from_db()
    game = get_game(match.game)
    return game, game.state_from_json(match.state)


def first_legal(match: Match, kind: str | None = None) -> tuple[int, dict]:
    """(seat to act, its first legal action, of ``kind`` when given)."""
    game, state = live_state(match)
    legal = [game.action_to_json(a) for a in game.legal_actions(state)]
    action = next(a for a in legal if kind is None or a["type"] == kind)
    return game.to_act(state), action


def wait_until(condition, timeout: float = 60.0, step: float = 0.05) -> bool:
    """Whether ``condition`` came true within ``timeout`` seconds, read afresh each time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        connection.close()  # see the worker's commits
        if condition():
            return True
        time.sleep(step)
    return False
