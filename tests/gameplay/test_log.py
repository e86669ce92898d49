"""The table's log tells who really made each move: a bot standing in is never the player."""

import pytest
from django.utils import translation

from gameplay import selectors, services
from gameplay.games.narration import describe
from gameplay.models import Move
from tables import selectors as table_selectors
from tests.gameplay.helpers import first_legal, human_match

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "stood_in", "by_player"),
    [
        ("en", "The bot for {name} drew a card.", "{name} drew a card."),
        ("ro", "Botul din locul lui {name} a tras o carte.", "{name} a tras o carte."),
    ],
)
def test_moves_a_bot_made_for_a_player_are_logged_as_the_bots(language, stood_in, by_player):
    match, users = human_match("americana", 2)
    before = selectors.table_snapshot(table_selectors.table_detail(table_id=match.table_id))
    seat, draw = first_legal(match, "draw")
    services.act(match_id=match.pk, seat=seat, action=draw, actor=Move.Actor.TAKEOVER, expected_version=0)
    other, draw = first_legal(match, "draw")
    services.act(match_id=match.pk, seat=other, action=draw, actor=Move.Actor.PLAYER, expected_version=1)
    table = table_selectors.table_detail(table_id=match.table_id)
    # Read whole, and as news of the moves since a screen last read.
    for snapshot in (selectors.table_snapshot(table), selectors.snapshot_advanced(before)):
        with translation.override(language):
            log = selectors.table_screen(snapshot, users[0]).log
        assert log == [
            stood_in.format(name=users[seat].username),
            by_player.format(name=users[other].username),
        ]


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "ion played the 8 of clubs and holds the trick."),
        ("ro", "ion a jucat opt de treflă și ține levata."),
    ],
)
def test_a_tricks_first_card_is_told_as_holding_it_not_as_cutting(language, line):
    """The engine marks a trick's first card as cutting (it holds the trick): the log must not say it
    "cuts" a trick that has nothing in it yet, in either language."""
    led = {"type": "played", "seat": 1, "card": "8C", "cuts": True}
    with translation.override(language):
        assert describe(led, ["ana", "ion"]) == line


@pytest.mark.parametrize("game", ["americana", "classic"])
def test_the_table_after_a_move_built_from_what_the_move_committed_is_the_table_read_anew(game):
    match, users = human_match(game, 3)
    held = selectors.table_snapshot(table_selectors.table_detail(table_id=match.table_id))
    for version in range(6):
        seat, action = first_legal(match)
        moved = services.act(match_id=match.pk, seat=seat, action=action, expected_version=version)
        read = selectors.table_snapshot(table_selectors.table_detail(table_id=match.table_id))
        if moved.match is None:  # a round ended: the table is read anew
            held = read
            continue
        held = selectors.snapshot_after(held, moved.match, moved.state, moved.move)
        assert held.version == read.version == version + 1
        told: dict = {}  # what the screens of one version tell alike, made by the first and shared
        for user in users:
            assert selectors.table_screen(held, user) == selectors.table_screen(read, user)
            assert selectors.table_screen(held, user, common=told) == selectors.table_screen(read, user)
