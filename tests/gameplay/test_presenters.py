"""Each game's presenter, with no database: whole random matches, every seat's screen at every step."""

import dataclasses
import random

import pytest

from gameplay.engine import get_game, play_refusals
from gameplay.engine.cards import CODES
from gameplay.games import presenter
from gameplay.games.screen import ABORTED, FINISHED, Finished, Player

SETUPS = [
    ("americana", {"players": 2}),
    ("americana", {"players": 3, "jokers": True, "jack_draws_two": True, "court_follows": True}),
    ("americana", {"players": 4, "jokers": True}),
    ("classic", {"players": 2}),
    ("classic", {"players": 3, "match": "games1"}),
    ("classic", {"players": 4, "match": "points21", "lead": "winner"}),
]
PLAYERS = [
    Player("ana"),
    Player("Bot 2", is_bot=True, level="normal"),
    Player("ion"),
    Player("eva", stood_in=True),
]
CARD_CODES = set(CODES)


def card_codes(value) -> set[str]:
    """Every string in ``value`` (a screen as plain data) that is exactly a card's code."""
    if isinstance(value, str):
        return {value} & CARD_CODES
    if isinstance(value, dict):
        return set().union(*(card_codes(v) for v in value.values()), set())
    if isinstance(value, list | tuple):
        return set().union(*(card_codes(v) for v in value), set())
    return set()


def whole_match(game_name: str, options: dict, seed: int):
    """Every step of a random match: (state, the events so far, the rounds finished so far)."""
    game = get_game(game_name)
    state = game.new_match(game.options_from_json(options), seed)
    rng = random.Random(seed)
    log: list[tuple[int | None, list[dict]]] = []
    rounds: list[Finished] = []
    while True:
        yield state, log, rounds
        if game.is_over(state):
            return
        if game.awaiting_deal(state):
            game.next_round(state)
            continue
        events = game.apply(state, rng.choice(game.legal_actions(state)))
        log = [*log, (None, events)][-8:]
        if game.awaiting_deal(state) or game.is_over(state):
            rounds = [*rounds, Finished(len(rounds) + 1, game.view(state, None))]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(("game_name", "options"), SETUPS)
def test_every_seats_screen_shows_legal_buttons_the_suit_in_force_and_no_other_seats_card(
    game_name, options, seed
):
    game = get_game(game_name)
    show = presenter(game_name)
    players = PLAYERS[: options["players"]]
    steps = 0
    for state, log, rounds in whole_match(game_name, options, seed):
        steps += 1
        full = game.state_to_json(state)
        to_act = game.to_act(state)
        legal = [game.action_to_json(action) for action in game.legal_actions(state)]
        for seat in [*range(len(players)), None]:
            view = game.view(state, seat)
            mine = seat is not None and seat == to_act
            screen = show.screen(
                view,
                players=players,
                legal=legal if mine else (),
                rounds=rounds,
                log=log,
                refusals=play_refusals(game, state),
            )

            assert [card.code for card in screen.hand] == (full["hands"][seat] if seat is not None else [])
            played = {action["card"] for action in legal if action["type"] == "play"}
            assert {card.code for card in screen.hand if card.playable} == (played if mine else set())
            assert screen.my_turn == mine and screen.can_play == (mine and bool(played))
            others = {action["type"] for action in legal} - {"play"} if mine else set()
            assert {button.type for button in screen.buttons} == others
            for card in screen.hand:
                assert card.names_suit == (
                    game_name == "americana" and card.playable and card.code[:-1] == "7"
                )
                # Only the player to act is told why a card is refused, and only of a refused card.
                assert bool(card.refusal) == (mine and not card.playable)

            public = {
                *card_codes(view["hand"] or []),
                *card_codes(full.get("pile", [])),
                *card_codes(full.get("trick", [])),
            }
            if game_name == "americana":
                assert screen.suit == (full["suit"] or "")
                assert screen.top == full["pile"][-1]
                if view["hands"] is not None:  # laid open once the round is over
                    public |= card_codes(view["hands"])
            else:
                assert [played["card"] for played in screen.trick] == full["trick"]
                assert sum(played["holds"] for played in screen.trick) == (1 if full["trick"] else 0)
            assert card_codes(dataclasses.asdict(screen)) <= public
            assert len(screen.sheet.rows) == len(rounds)
            if seat is not None:
                assert screen.me.name == players[seat].name
                assert [info.position for info in screen.opponents] == [
                    (seat + i) % len(players) for i in range(1, len(players))
                ]
    assert steps > 20
    assert screen.on_show == "match" and screen.outcome_text.endswith(("the match.", "are level."))
    if view["winners"]:
        winning = screen.sheet.sides[screen.sheet.winner]
        assert winning.split(" & ")[0] in screen.outcome_text
    else:
        assert screen.sheet.winner is None
    assert screen.sheet.result == ""
    assert screen.sheet.totals == view["totals"]


def test_the_result_names_the_winning_side_and_says_why_a_match_stopped():
    show = presenter("classic")
    names = ["ana", "bob", "ion", "eva"]
    options = {"players": 4, "match": "points8", "lead": "rotate"}
    assert show.result(FINISHED, [1, 3], names, options) == "bob & eva win the match."
    assert show.result(FINISHED, [], names, options) == "No winner: the best totals are level."
    assert presenter("americana").result(FINISHED, [2], names[:3], {"players": 3, "target": 101}) == (
        "ion wins the match."
    )
    assert show.result(ABORTED, [], names, options, "Stopped by a moderator.") == (
        "The match was stopped: Stopped by a moderator."
    )


def test_option_labels_say_each_option_once():
    assert presenter("americana").option_labels(
        {"players": 3, "jokers": True, "jack_draws_two": False, "court_follows": True, "target": 301}
    ) == ["3 players", "target 301", "jokers", "court follows"]
    assert presenter("classic").option_labels({"players": 4, "match": "games2", "lead": "winner"}) == [
        "2 v 2 in teams",
        "first to win 2 games",
        "winner leads",
    ]


def test_a_replay_screen_lays_every_hand_open_for_a_spectator():
    game = get_game("americana")
    state = game.new_match(game.options_from_json({"players": 2}), 5)
    hands = game.state_to_json(state)["hands"]
    screen = presenter("americana").screen(game.view(state, None), players=PLAYERS[:2], open_hands=hands)
    assert screen.me is None and not screen.hand
    assert [info.open_hand for info in screen.opponents] == hands
