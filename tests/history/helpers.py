"""Matches played to their end by bot policies through gameplay.services, as the site plays them."""

import random

from bots.policies import choose
from gameplay import services
from gameplay.models import Match, Move
from tables import services as table_services
from tests.gameplay.helpers import live_state


def seated_match(game: str, people: list, options: dict, *, private: bool = False) -> Match:
    """A started match: ``people`` in the first seats (the first hosts), bots in the rest."""
    players = options["players"]
    table = services.table_create(
        host=people[0], game=game, options=options, turn_clock=0 if private else 45, is_private=private
    )
    for person in people[1:]:
        table_services.seat_take(table_id=table.pk, user=person, token=table.invite_token)
    for position in range(len(people), players):
        table_services.bot_add(table_id=table.pk, by=people[0], position=position, level="easy")
    return Match.objects.get(table=table)


def play_out(match: Match, seed: int = 0, *, moves: int | None = None) -> Match:
    """Play ``match`` with the easy bot on every seat (people's seats sometimes by a bot standing in),
    dealing each next round as the Celery task would, to the end or for ``moves`` moves."""
    rng = random.Random(seed)
    bots = set(match.table.seats.filter(user__isnull=True).values_list("position", flat=True))
    made = 0
    while moves is None or made < moves:
        game, state = live_state(match)
        if match.status != Match.Status.PLAYING:
            break
        if game.awaiting_deal(state):
            services.round_deal_next(match_id=match.pk, expected_version=match.version)
            continue
        seat = game.to_act(state)
        legal = [game.action_to_json(action) for action in game.legal_actions(state)]
        action = choose(game.view(state, seat), legal, "easy", rng)
        if seat in bots:
            actor = Move.Actor.BOT
        else:
            actor = Move.Actor.TAKEOVER if rng.random() < 0.2 else Move.Actor.PLAYER
        services.act(match_id=match.pk, seat=seat, action=action, actor=actor)
        made += 1
    match.refresh_from_db()
    return match


def finished_match(
    game: str, people: list, options: dict | None = None, *, private: bool = False, seed: int = 0
) -> Match:
    """A match played to its end (two players unless ``options`` say otherwise)."""
    return play_out(seated_match(game, people, {"players": 2, **(options or {})}, private=private), seed)


def mark_over(match: Match, winners: list[int] | None = None, *, aborted: bool = False) -> Match:
    """Record a started match as decided (``winners``, may be none) or aborted, without playing it."""
    if aborted:
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.ABORTED, abort_reason="Stopped by a moderator."
        )
    else:
        result = {"winners": winners or [], "losers": [], "totals": match.state["totals"], "games_won": None}
        Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, result=result)
    match.refresh_from_db()
    return match
