"""Classic Șeptică bots: each level's habits and the hard player's sampling."""

import random

from bots.policies import choose
from bots.policies.classic import Sampler, _taken
from gameplay.engine import get_game

from .positions import classic_match, classic_state, random_positions

GAME = get_game("classic")


def decide(state, level="normal", seed=0, budget=None, history=None):
    seat = GAME.to_act(state)
    legal = [GAME.action_to_json(a) for a in GAME.legal_actions(state)]
    return choose(GAME.view(state, seat), legal, level, random.Random(seed), history=history, budget=budget)


def play(state, *codes):
    for c in codes:
        GAME.apply(state, GAME.action_from_json({"type": "play", "card": c}))
    return state


def test_normal_cuts_a_trick_with_points_on_it():
    state = play(classic_match([["AS", "8S", "9S", "JS"], ["AH", "8C", "9D", "7S"]]), "AS")
    assert decide(state) == {"type": "play", "card": "AH"}


def test_normal_keeps_its_seven_and_its_points_when_the_trick_is_worthless():
    state = play(classic_match([["8S", "9S", "JS", "QS"], ["7H", "9C", "10D", "KD"]]), "8S")
    assert decide(state) == {"type": "play", "card": "9C"}


def test_normal_gives_points_to_its_partner_holding_the_trick():
    hands = [
        ["8S", "9S", "JS", "QS"],
        ["9C", "JC", "QC", "KC"],
        ["10H", "9D", "JD", "QD"],
        ["KS", "KH", "KD", "QH"],
    ]
    state = play(classic_match(hands), "8S", "9C")
    assert decide(state) == {"type": "play", "card": "10H"}


def test_normal_ends_a_worthless_trick_and_fights_for_points():
    worthless = play(classic_match([["8S", "8D", "9C", "KD"], ["8H", "JC", "QC", "KC"]]), "8S", "8H")
    assert GAME.view(worthless, 0)["awaiting"] == "continue"
    assert decide(worthless) == {"type": "end"}
    worth_it = play(classic_match([["10S", "10D", "9C", "KD"], ["10H", "JC", "QC", "KC"]]), "10S", "10H")
    assert decide(worth_it) == {"type": "play", "card": "10D"}


def test_easy_plays_anything_legal():
    state = play(classic_match([["AS", "8S", "9S", "JS"], ["AH", "8C", "9D", "7S"]]), "AS")
    assert {decide(state, "easy", seed)["card"] for seed in range(50)} == {"AH", "8C", "9D", "7S"}


def test_hard_takes_the_last_points_of_the_deal():
    """Two cards each, the other player led the ten of spades: cutting with the ten of hearts
    takes both tens, and the ace after it (the eight is not cut back); the eight loses all three."""
    ranks = ("7", "8", "9", "10", "J", "Q", "K", "A")
    taken = [r + s for r in ranks for s in "SHDC" if r + s not in {"10H", "8C", "AD", "10S"}]
    state = classic_state([["10H", "8C"], ["AD"]], ["10S"], leader=1, won=[taken, []])
    assert decide(state, "hard", budget=0.05) == {"type": "play", "card": "10H"}


def test_sampled_deals_agree_with_the_view_with_or_without_history():
    for players in (2, 3, 4):
        for position in random_positions("classic", players, 12, seed=21):
            view = position.view()
            won = _taken(view, position.history)
            assert won is not None
            for taken in (won, None):
                sample = Sampler(view, taken)
                for seed in range(3):
                    assert GAME.view(sample(random.Random(seed)), view["seat"]) == view
