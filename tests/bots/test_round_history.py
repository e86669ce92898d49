"""A bot's turn reads the round being played, and only it: its deal and the moves since, the same
events the practice table keeps as it plays (both from the engine's one ``step``)."""

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.services import round_history
from gameplay.engine.step import ROUND_ENDS
from gameplay.models import Match, Move
from practice.offline import PracticeTable
from tests.factories import make_user
from tests.history.helpers import play_out, seated_match

pytestmark = pytest.mark.django_db


def into_a_later_round(game: str, options: dict, rounds: int) -> Match:
    """A match played by bots until ``rounds`` rounds are over and the next is under way (dealt, and
    a move made in it)."""
    match = seated_match(game, [make_user("ana")], options)
    while match.rounds.count() < rounds or match.to_act is None or match.dealt_after_move == match.moves_made:
        match = play_out(match, seed=match.moves_made, moves=1)
        assert match.status == Match.Status.PLAYING, "the match ended before the round wanted"
    return match


def as_practice(match: Match) -> PracticeTable:
    """The same match, replayed from its moves by the practice table."""
    actions = list(Move.objects.filter(match=match).order_by("seq").values_list("action", flat=True))
    players = match.options["players"]
    record = {
        "game": match.game,
        "options": match.options,
        "seed": match.seed,
        "bots": ["easy"] * (players - 1),
        "actions": actions,
    }
    return PracticeTable(record=record, language="en", player_name="ana")


@pytest.mark.parametrize(
    ("game", "options"),
    [("americana", {"players": 3, "target": 301}), ("classic", {"players": 2, "match": "points21"})],
)
def test_the_round_read_is_the_practice_tables_and_starts_after_the_last_round_ended(game, options):
    match = into_a_later_round(game, options, rounds=2)
    last_ended = max(
        seq
        for seq, events in Move.objects.filter(match=match).values_list("seq", "events")
        if any(event["type"] in ROUND_ENDS for event in events)
    )
    assert match.dealt_after_move == last_ended
    with CaptureQueriesContext(connection) as queries:
        history = round_history(match)
    assert len(queries) == 1 and f'"seq" > {last_ended}' in queries[0]["sql"]
    assert history == as_practice(match).round_events
    assert history[: len(match.deal_events)] == match.deal_events and match.deal_events


def test_a_match_under_way_at_the_upgrade_is_given_its_rounds_start():
    match = into_a_later_round("americana", {"players": 2, "target": 301}, rounds=1)
    marked = match.dealt_after_move
    Match.objects.filter(pk=match.pk).update(dealt_after_move=0)
    importlib.import_module("gameplay.migrations.0006_match_dealt_after_move").mark_current_rounds(apps, None)
    match.refresh_from_db()
    assert match.dealt_after_move == marked > 0
    assert round_history(match) == as_practice(match).round_events
