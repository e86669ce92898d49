"""A bot's turn: read the seat's view, let the policy choose, play it through gameplay.services."""

from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match, Move
from observe import metrics
from tables.models import BotLevel, Seat

from .turn import decide

STAND_IN_LEVEL = BotLevel.NORMAL
"""The level of the bot that stands in for a quiet player."""


def round_history(match: Match) -> list[dict]:
    """The public events of the current round: its deal, then every move since (the round's moves
    only, read by their numbers, however long the match has run)."""
    moves = Move.objects.filter(match=match, seq__gt=match.dealt_after_move).order_by("seq")
    return [
        *match.deal_events,
        *(event for events in moves.values_list("events", flat=True) for event in events),
    ]


def bot_turn(*, match_id: int, expected_version: int) -> bool:
    """Play the turn of the bot (or stand-in) whose turn it is at ``expected_version``.

    Does nothing (False) when the match has moved on, is over, or the seat is a person's
    again. The policy sees the seat's view and legal actions only, never the state.
    """
    match = Match.objects.filter(pk=match_id, status=Match.Status.PLAYING).first()
    if match is None or match.version != expected_version:
        return False
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    seat_number = game.to_act(state)
    if seat_number is None:
        return False
    seat = Seat.objects.get(table_id=match.table_id, position=seat_number)
    if not (seat.is_bot or seat.is_taken_over):
        return False
    level = seat.bot_level or STAND_IN_LEVEL
    decision = decide(
        game, state, seat_number, level, seed=match.seed, version=match.version, history=round_history(match)
    )
    metrics.BOT_DECISION_SECONDS.labels(level=level).observe(decision.seconds)
    try:
        gameplay_services.act(
            match_id=match_id,
            seat=seat_number,
            action=decision.action,
            actor=Move.Actor.BOT if seat.is_bot else Move.Actor.TAKEOVER,
            expected_version=expected_version,
        )
    except gameplay_services.ActionRefused:
        return False
    return True
