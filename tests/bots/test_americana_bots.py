"""Șeptică Americană bots: each level's habits, the search's simulator held to the engine, and
what the history lets the hard player infer."""

import random

from bots.policies import choose
from bots.policies.americana import Knowledge, Sampler
from bots.policies.americana_sim import HANDS, Simulator
from gameplay.engine import get_game
from gameplay.engine.cards import card

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


def test_the_simulators_steps_are_the_engines():
    """Every legal action, applied by the simulator and by the engine, leaves the same position."""
    for position in random_positions("americana", 3, 25, seed=11):
        view = position.view()
        sample = Sampler(view, None)
        for action in position.legal():
            state = GAME.clone(position.state)
            events = GAME.apply(state, GAME.action_from_json(action))
            if any(e["type"] in ("reshuffled", "passed") for e in events):
                continue  # different shuffles; automatic passes are the playout's business
            pos = _position_of(GAME.state_to_json(position.state), sample.me)
            out = Simulator(view["options"]).step(pos, action, random.Random(0))
            after = GAME.state_to_json(state)
            assert [_mask(h) for h in after["hands"]] == pos[HANDS]
            assert [card(c) for c in after["pile"]] == pos[2]
            assert (after["owed"], after["skip"]) == (pos[4], pos[5])
            if out is None:
                assert after["to_act"] == pos[6]
                assert after["suit"] == (None if pos[3] < 0 else "SHDC"[pos[3]])
            else:
                assert after["out"] == out


def test_the_simulators_playouts_make_only_legal_moves_and_score_like_the_engine():
    checked = 0
    for position in random_positions("americana", 2, 30, seed=12):
        data = GAME.state_to_json(position.state)
        record: list = []
        pos = _position_of(data, position.seat)
        charges, decisions = Simulator(data["options"]).finish(pos, random.Random(3), record)
        assert decisions == len(record)
        state = GAME.clone(position.state)
        for seat, action in record:
            assert GAME.to_act(state) == seat
            assert action in [GAME.action_to_json(a) for a in GAME.legal_actions(state)]
            events = GAME.apply(state, GAME.action_from_json(action))
            if any(e["type"] == "reshuffled" for e in events):
                break  # the engine reshuffles with its own generator: the games part here
        else:
            assert GAME.view(state, None)["charges"] == charges
            checked += 1
    assert checked >= 10


def test_sampled_positions_agree_with_the_view_and_the_history():
    for players in (2, 3, 4):
        for position in random_positions("americana", players, 15, seed=13):
            view = position.view()
            knowledge = Knowledge.from_history(view, position.history)
            assert knowledge is not None
            sample = Sampler(view, knowledge)
            for seed in range(3):
                pos = sample(random.Random(seed))
                assert [h.bit_count() for h in pos[HANDS]] == view["hand_counts"]
                assert pos[HANDS][view["seat"]] == _mask(view["hand"])
                assert len(pos[1]) == view["stock_count"]
                deck = sorted(c for h in pos[HANDS] for c in _cards(h)) + pos[1] + pos[2]
                assert sorted(deck) == list(range(52))
                for seat, hand in enumerate(knowledge.seats):
                    if seat != view["seat"]:
                        assert pos[HANDS][seat] & hand.known == hand.known


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


def _position_of(data: dict, seat: int) -> list:
    """The simulator's position for an engine state JSON (the hidden cards as they really are)."""
    suit = -1 if data["suit"] is None else "SHDC".index(data["suit"])
    stock = [card(c) for c in reversed(data["stock"])]
    pile = [card(c) for c in data["pile"]]
    hands = [_mask(h) for h in data["hands"]]
    return [hands, stock, pile, suit, data["owed"], data["skip"], data["to_act"], data["passes"]]
