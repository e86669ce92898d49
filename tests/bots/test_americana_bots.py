"""Șeptică Americană bots: each level's habits, the search's playout chooser held to the engine's
rules, and what the history lets the hard player infer."""

import random

from bots.policies import choose
from bots.policies.americana import (
    MATCH_WON,
    Knowledge,
    Sampler,
    habit,
    normal,
    normal_habit,
    seats_model,
    standing,
)
from gameplay.engine import get_game
from gameplay.engine.cards import CODES, card

from .positions import americana_state, random_positions

GAME = get_game("americana")


def decide(state, level="normal", seed=0, budget=None):
    seat = GAME.to_act(state)
    legal = [GAME.action_to_json(a) for a in GAME.legal_actions(state)]
    return choose(GAME.view(state, seat), legal, level, random.Random(seed), budget=budget)


def test_easy_mostly_plays_a_card_rather_than_drawing():
    state = americana_state([["3C", "9H", "KD", "5S", "JH"], ["6H", "8D", "3S"]], ["10C"])
    plays = sum(decide(state, "easy", seed)["type"] == "play" for seed in range(200))
    assert plays >= 150


def test_normal_names_the_suit_it_holds_most():
    state = americana_state([["7S", "3H", "5H", "KH", "9D"], ["6C", "8D", "3S"]], ["10C"])
    assert decide(state) == {"type": "play", "card": "7S", "suit": "H"}


def test_normal_keeps_its_seven_when_an_ordinary_card_fits():
    state = americana_state([["7S", "3C", "5H", "KH", "9D"], ["6C", "8D", "3S"]], ["10C"])
    assert decide(state) == {"type": "play", "card": "3C"}


def test_normal_sheds_its_dearest_card_and_keeps_its_two():
    state = americana_state([["2C", "9C", "KC", "4H", "6D"], ["6H", "8D", "3S"]], ["10C"])
    assert decide(state) == {"type": "play", "card": "KC"}


def test_normal_attacks_when_the_other_player_is_about_to_go_out():
    state = americana_state([["2C", "9C", "KC", "4H", "6D"], ["6H"]], ["10C"])
    assert decide(state) == {"type": "play", "card": "2C"}


def test_normal_passes_an_attack_on_instead_of_taking():
    state = americana_state([["2H", "9C", "KC"], ["6H", "8D", "3S"]], ["10C", "2C"], owed=2)
    assert decide(state) == {"type": "play", "card": "2H"}


def test_hard_finds_the_ace_that_goes_out_in_two_moves():
    """With two players an ace makes the other sit out: ace, then the last heart, and the round
    is won. The other three aces lie in the pile, so nobody can pass the skip back. Normal
    sheds the five first and gives the other player a turn."""
    state = americana_state([["AH", "5H"], ["QS", "JD", "4C"]], ["AS", "AD", "AC", "9H"])
    assert decide(state, "normal") == {"type": "play", "card": "5H"}
    assert decide(state, "hard", budget=0.05) == {"type": "play", "card": "AH"}


def played_out(chooser_of, *, per_size: int, seed: int, playout_seed: int):
    """Random positions at 2, 3 and 4 players, each played out on the engine by the chooser
    ``chooser_of`` makes: the state it reached, a copy of the start to replay the record on, the
    record, and the decisions the playout counted."""
    for players in (2, 3, 4):
        for position in random_positions("americana", players, per_size, seed=seed):
            fast = GAME.clone(position.state)
            record: list = []
            decisions = GAME.playout(fast, random.Random(playout_seed), chooser_of(fast.options), record)
            yield fast, GAME.clone(position.state), record, decisions


def test_the_search_plays_its_habits_on_the_engines_rules():
    """The hard player's playouts (the engine's, with ``habit`` choosing) make only legal moves:
    replayed through ``apply`` they reach the same end, and a seat with an ordinary card that fits
    never draws, nor takes or sits out when it can answer."""
    checked = 0
    for fast, readable, record, decisions in played_out(habit, per_size=12, seed=12, playout_seed=3):
        assert decisions == len(record)
        for action, count in record:
            legal = GAME.legal_actions(readable)
            assert action in legal and count == len(legal)
            assert action.type == "play" or not [a for a in legal if a.type == "play"]
            GAME.apply(readable, action)
        assert GAME.state_to_json(readable) == GAME.state_to_json(fast)
        checked += 1
    assert checked == 36


def test_the_playouts_normal_plays_as_normal_does():
    """The search's model of the other seats is ``normal`` itself: at every decision of a playout
    the chooser picks the very action ``normal`` picks from that seat's view, and the playout
    stays on the engine's rules."""
    compared = 0
    for fast, readable, record, _decisions in played_out(normal_habit, per_size=10, seed=14, playout_seed=5):
        for action, _count in record:
            seat = GAME.to_act(readable)
            legal = [GAME.action_to_json(a) for a in GAME.legal_actions(readable)]
            picked = normal(GAME.view(readable, seat), legal, random.Random(0))
            assert GAME.action_from_json(picked) == action
            GAME.apply(readable, action)
            compared += 1
        assert GAME.state_to_json(readable) == GAME.state_to_json(fast)
    assert compared > 100


def test_the_search_plays_its_own_seat_loosely_and_the_others_as_normal():
    state = americana_state([["2C", "9C", "KC", "4H", "6D"], ["6H", "8D", "3S", "5S"]], ["10C"])
    model = seats_model(1, state.options)
    assert len(model) == 2
    normal_choice = normal_habit(state.options)
    clubs = (1 << card("2C")) | (1 << card("9C")) | (1 << card("KC"))
    for seed in range(10):
        assert model[0](state.hands, 0, clubs, None, random.Random(seed)) == normal_choice(
            state.hands, 0, clubs, None, random.Random(seed)
        )
    # Seat 1's own moves are the habit's: sometimes the dearest card, sometimes any.
    spades = (1 << card("3S")) | (1 << card("5S"))
    picks = {model[1](state.hands, 1, spades, None, random.Random(seed)).card for seed in range(40)}
    assert picks == {card("3S"), card("5S")}


def test_a_habit_names_the_suit_it_holds_most():
    state = americana_state([["7S", "3H", "5H", "KH", "9D"], ["6C", "8D", "3S"]], ["10C"])
    choose = habit(state.options)
    seven = card("7S")
    for seed in range(20):
        action = choose(state.hands, 0, 1 << seven, None, random.Random(seed))
        assert (action.card, action.suit) == (seven, "SHDC".index("H"))


def test_sampled_positions_agree_with_the_view_and_the_history():
    for players in (2, 3, 4):
        for position in random_positions("americana", players, 15, seed=13):
            view = position.view()
            knowledge = Knowledge.from_history(view, position.history)
            assert knowledge is not None
            sample = Sampler(view, knowledge)
            for seed in range(3):
                state = sample(random.Random(seed))
                assert [h.bit_count() for h in state.hands] == view["hand_counts"]
                assert state.hands[view["seat"]] == _mask(view["hand"])
                assert len(state.stock) == view["stock_count"]
                assert [CODES[c] for c in state.pile] == view["pile"]
                assert _round_part(GAME.view(state, view["seat"])) == _round_part(view)
                deck = sorted(c for h in state.hands for c in _cards(h)) + state.stock + state.pile
                assert sorted(deck) == list(range(52))
                for seat, hand in enumerate(knowledge.seats):
                    if seat != view["seat"]:
                        assert state.hands[seat] & hand.known == hand.known


def test_what_the_history_tells_is_true():
    """Buried cards are followed to the hand that drew them; a seat that drew instead of playing
    (the test's players never do so holding an ordinary card that fits) lacks those cards."""
    followed = inferred = 0
    for players in (2, 3, 4):
        for position in random_positions("americana", players, 60, seed=14, levels=("normal",)):
            knowledge = Knowledge.from_history(position.view(), position.history)
            data = GAME.state_to_json(position.state)
            stock = [card(c) for c in reversed(data["stock"])]
            for index, c in enumerate(knowledge.stock):
                if c >= 0:
                    assert stock[index] == c
                    followed += 1
            for seat, hand in enumerate(knowledge.seats):
                held = _mask(data["hands"][seat])
                assert held & hand.known == hand.known
                lacking = held & hand.void & ~hand.known
                assert lacking.bit_count() <= hand.fresh
                inferred += bool(hand.void)
    assert followed and inferred


def test_a_history_from_another_round_is_not_believed():
    first, second = random_positions("americana", 2, 2, seed=15)
    assert Knowledge.from_history(first.view(), [*second.history, {"type": "drew", "seat": 0}]) is None


def _mask(codes: list[str]) -> int:
    return sum(1 << card(c) for c in codes)


def _cards(mask: int) -> list[int]:
    return [c for c in range(54) if mask >> c & 1]


def _round_part(view: dict) -> dict:
    """A view without what a sampled round does not carry over: the match's round, dealer and totals."""
    return {key: value for key, value in view.items() if key not in ("round", "dealer", "totals")}


def test_hard_weighs_a_round_by_the_match_the_lowest_total_wins():
    # The lead over the best of the others counts, not over their average: charging the player far
    # behind is worth nothing while the match goes on...
    assert standing([30, 10, 60], 0, 101) == standing([30, 10, 90], 0, 101) == -20
    # ...and costs the match when it ends it with somebody else lowest.
    assert standing([30, 10, 101], 0, 101) == -20 - MATCH_WON
    # Ending it in the lead is the match won; a shared lowest total wins nobody anything.
    assert standing([10, 30, 101], 0, 101) == 20 + MATCH_WON
    assert standing([10, 10, 120], 0, 101) == 0
    # Two players: the lead over the one opponent, as before.
    assert standing([40, 55], 0, 101) == 15
