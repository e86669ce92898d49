"""A table's update is put together from pieces shared between viewers and kept from move to move:
it must be exactly what the template renders for each viewer on its own, at every step of whole
matches, for every seat and a spectator, in both languages."""

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from gameplay import frames
from gameplay.engine import get_game, play_refusals
from gameplay.games import presenter
from gameplay.games.screen import Player
from tests.gameplay.test_presenters import SETUPS, whole_match

PLAYERS = [
    Player("ana <b>&amp;</b>"),
    Player("Bot 2", is_bot=True, level="normal"),
    Player('ion "o\'neil"'),
    Player("eva", stood_in=True),
]
PIECES = ("opponents", "topbar", "log", "notice", "outcome")
"""Besides the hand and its turn line, checked on their own."""


@pytest.mark.parametrize("language", ["ro", "en"])
@pytest.mark.parametrize(("game_name", "options"), SETUPS)
def test_the_shared_pieces_are_what_each_viewer_would_render_alone(game_name, options, language):
    game = get_game(game_name)
    show = presenter(game_name)
    players = PLAYERS[: options["players"]]
    checked = emptied = 0
    with translation.override(language):
        for step, (state, log, rounds) in enumerate(whole_match(game_name, options, seed=3)):
            # Every seventh step, and every one where a hand is empty (its own notice in the hand).
            empty = any(not game.view(state, seat)["hand"] for seat in range(len(players)))
            if step % 7 and not empty:
                continue
            emptied += empty
            shared: dict[tuple, str] = {}
            to_act = game.to_act(state)
            legal = [game.action_to_json(action) for action in game.legal_actions(state)]
            for seat in [*range(len(players)), None]:
                mine = seat is not None and seat == to_act
                screen = show.screen(
                    game.view(state, seat),
                    players=players,
                    legal=legal if mine else (),
                    rounds=rounds,
                    log=log,
                    version=step,
                    deadline=f"2026-12-05T10:{step % 60:02d}:00+00:00"
                    if to_act is not None and step % 2
                    else None,
                    refusals=play_refusals(game, state),
                )
                context = {"screen": screen, "notice": ""}
                for name in PIECES:
                    alone = render_to_string(f"gameplay/table.html#{name}", context)
                    assert frames._fragment(render_to_string, name, context, shared, language) == alone
                hand = frames._hand_fragments(
                    render_to_string, context, sent={}, shared=shared, language=language
                )
                assert hand == [render_to_string("gameplay/table.html#hand", context)]
                turn = shared[("turn", language, *frames.turn_key(screen))]
                assert turn == render_to_string("gameplay/table.html#turn", context)
                checked += 1
    assert checked > 20
    assert emptied > 0
