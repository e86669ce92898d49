"""Rated matches between people, played to their end through gameplay's services."""

import random

from bots.policies import choose
from gameplay import services
from gameplay.models import Match
from ratings import services as rating_services
from ratings.models import Rating
from tables import services as table_services
from tests.gameplay.helpers import live_state
from tests.history.helpers import play_out


def rated_table_match(
    game: str, people: list, options: dict | None = None, *, rated: bool = True, private: bool = False
) -> Match:
    """A started match at a public table (45 s a turn; ``private``: a private one without a clock),
    rated unless ``rated`` is False: ``people`` in the first seats, easy bots in any others."""
    options = {"players": len(people), **(options or {})}
    table = services.table_create(
        host=people[0],
        game=game,
        options=options,
        turn_clock=0 if private else 45,
        is_private=private,
        rated=rated,
    )
    for person in people[1:]:
        table_services.seat_take(table_id=table.pk, user=person, token=table.invite_token)
    for position in range(len(people), options["players"]):
        table_services.bot_add(table_id=table.pk, by=people[0], position=position, level="easy")
    return Match.objects.get(table=table)


def rated_and_played(game: str, people: list, options: dict | None = None, *, seed: int = 0) -> Match:
    """A rated match played to its end and rated (as the news of its end would have it)."""
    match = play_out(rated_table_match(game, people, options), seed)
    assert match.status == Match.Status.FINISHED
    rating_services.match_rate(match_id=match.pk)
    return match


def one_move_from_the_end(match: Match, seed: int = 5) -> tuple[int, dict]:
    """Play ``match`` with the easy bot until its next move ends it (dealing as needed); that move
    (seat, action), not made."""
    rng = random.Random(seed)
    while True:
        game, state = live_state(match)
        if game.awaiting_deal(state):
            services.round_deal_next(match_id=match.pk, expected_version=match.version)
            continue
        seat = game.to_act(state)
        legal = [game.action_to_json(action) for action in game.legal_actions(state)]
        action = choose(game.view(state, seat), legal, "easy", rng)
        trial = game.state_from_json(game.state_to_json(state))
        game.apply(trial, game.action_from_json(action))
        if game.is_over(trial):
            return seat, action
        services.act(match_id=match.pk, seat=seat, action=action)


def snapshot() -> dict:
    """Every rating as exact numbers, to compare the live path with a rebuild."""
    return {
        (row.user_id, row.game): (row.mu, row.sigma, row.shown, row.peak, row.matches, row.established)
        for row in Rating.objects.all()
    }
