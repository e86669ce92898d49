"""The Game protocol as the rest of the site uses Americana: options, actions, views, saving, lifecycle."""

import json
import random

import pytest

from gameplay.engine import IllegalAction, get_game
from gameplay.engine.americana import (
    DRAW,
    GAME,
    POINTS,
    SIT_OUT,
    TAKE,
    Action,
    Options,
    cards_of,
    hand_value,
    play_action,
    rollout_choice,
)
from gameplay.engine.cards import CODES
from tests.engine.test_americana_rules import deal

EVERY_ACTION = [
    DRAW,
    TAKE,
    SIT_OUT,
    *(play_action(c) for c in range(54)),
    *(play_action(c, s) for c in range(20, 24) for s in range(4)),
]


def test_the_registry_serves_this_game():
    assert get_game("americana") is GAME and GAME.name == "americana"


class TestOptions:
    def test_defaults(self):
        options = GAME.options_from_json({})
        assert options == Options()
        assert GAME.options_to_json(options) == {
            "players": 4,
            "jokers": False,
            "jack_draws_two": False,
            "court_follows": False,
            "target": 101,
        }

    def test_round_trip(self):
        data = {"players": 2, "jokers": True, "jack_draws_two": True, "court_follows": True, "target": 501}
        assert GAME.options_to_json(GAME.options_from_json(data)) == data

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ({"players": 5}, "'players' must be 2, 3 or 4"),
            ({"players": "4"}, "'players' must be 2, 3 or 4"),
            ({"players": 4.0}, "'players' must be 2, 3 or 4"),
            ({"players": True}, "'players' must be 2, 3 or 4"),
            ({"target": 100}, "'target' must be 101, 301 or 501"),
            ({"jokers": "yes"}, "'jokers' must be true or false"),
            ({"jack_draws_two": 1}, "'jack_draws_two' must be true or false"),
            ({"court_follows": None}, "'court_follows' must be true or false"),
            ({"colour": "red"}, "Unknown option"),
            ([], "must be a JSON object"),
        ],
    )
    def test_bad_values(self, data, message):
        with pytest.raises(ValueError, match=message):
            GAME.options_from_json(data)


class TestActions:
    def test_every_action_round_trips_through_json_to_the_same_prebuilt_object(self):
        for action in EVERY_ACTION:
            data = GAME.action_to_json(action)
            assert GAME.action_from_json(json.loads(json.dumps(data))) is action
        assert len(set(EVERY_ACTION)) == len(EVERY_ACTION)

    def test_json_and_text_forms(self):
        seven = GAME.action_from_json({"type": "play", "card": "7D", "suit": "S"})
        assert GAME.action_to_json(seven) == {"type": "play", "card": "7D", "suit": "S"}
        assert str(seven) == "play 7D S" and str(play_action(CODES.index("10H"))) == "play 10H"
        assert [str(a) for a in (DRAW, TAKE, SIT_OUT)] == ["draw", "take", "sit_out"]
        assert seven == Action("play", 22, 0) and hash(seven) == hash(Action("play", 22, 0))

    @pytest.mark.parametrize(
        "data",
        [
            None,
            {},
            {"type": "pass"},
            {"type": "play"},
            {"type": "play", "card": "11H"},
            {"type": "play", "card": "9H", "suit": "S"},
            {"type": "play", "card": "7H", "suit": "hearts"},
            {"type": "play", "card": "7H", "color": "red"},
            {"type": "take", "count": 2},
        ],
    )
    def test_malformed(self, data):
        with pytest.raises(ValueError):
            GAME.action_from_json(data)

    def test_legal_actions_are_the_prebuilt_objects(self):
        state = GAME.new_match(GAME.options_from_json({"jokers": True}), 5)
        rng = random.Random(5)
        prebuilt = {id(action) for action in EVERY_ACTION}
        for _ in range(200):
            if GAME.awaiting_deal(state):
                GAME.next_round(state)
            if GAME.is_over(state):
                break
            actions = GAME.legal_actions(state)
            assert {id(action) for action in actions} <= prebuilt
            GAME.apply(state, rng.choice(actions))

    def test_apply_refuses_what_is_not_an_action(self):
        state = GAME.new_match(GAME.options_from_json({}), 1)
        with pytest.raises(IllegalAction, match="Not an action"):
            GAME.apply(state, {"type": "draw"})
        with pytest.raises(IllegalAction, match="Unknown action"):
            GAME.apply(state, Action("pass"))

    def test_only_a_seven_names_a_suit(self):
        table = deal([["9H", "3S"], ["8D", "6S"], ["KD", "10S"]], ["5H"])
        state = GAME.new_match(GAME.options_from_json({"players": 3}), 0, table)
        with pytest.raises(IllegalAction, match="Only a seven names a suit"):
            GAME.apply(state, Action("play", CODES.index("9H"), 0))


class TestView:
    def test_a_seat_sees_its_own_hand_and_the_counts(self):
        table = deal([["9H", "3S"], ["8D", "6S", "QC"], ["KD", "10S"]], ["4C", "5H"])
        state = GAME.new_match(GAME.options_from_json({"players": 3}), 0, table)
        view = GAME.view(state, 1)
        assert view["hand"] == ["6S", "8D", "QC"] and view["hand_counts"] == [2, 3, 2]
        assert view["pile"] == ["4C", "5H"] and view["top"] == "5H" and view["suit"] == "H"
        assert view["stock_count"] == 52 - 9 and view["to_act"] == 0 and view["dealer"] == 2
        assert view["hands"] is None and view["charges"] is None and view["totals"] == [0, 0, 0]
        assert view["options"]["players"] == 3 and view["round"] == 1
        assert not {"stock", "rng", "seed"} & set(view)

    def test_a_spectator_sees_no_hand(self):
        state = GAME.new_match(GAME.options_from_json({}), 0)
        view = GAME.view(state, None)
        assert view["hand"] is None and view["seat"] is None
        shown = json.dumps(view)
        assert not any(f'"{CODES[c]}"' in shown for hand in state.hands for c in range(54) if hand >> c & 1)

    @pytest.mark.parametrize("seat", [-1, 4, "0", 1.5])
    def test_no_such_seat(self, seat):
        with pytest.raises(ValueError):
            GAME.view(GAME.new_match(GAME.options_from_json({}), 0), seat)


class TestSaving:
    def _midgame(self, seed=9):
        state = GAME.new_match(GAME.options_from_json({"players": 3, "jokers": True}), seed)
        rng = random.Random(seed)
        for _ in range(40):
            GAME.apply(state, rng.choice(GAME.legal_actions(state)))
            if not GAME.legal_actions(state):
                break
        return state

    def test_json_round_trip_is_exact_and_the_copy_plays_on_identically(self):
        state = self._midgame()
        data = json.loads(json.dumps(GAME.state_to_json(state)))
        copy = GAME.state_from_json(data)
        assert GAME.state_to_json(copy) == data
        for one in (state, copy):
            GAME.playout(one, random.Random(1), "random")
        assert GAME.state_to_json(copy) == GAME.state_to_json(state)

    def test_clone_is_independent(self):
        state = self._midgame()
        before = GAME.state_to_json(state)
        copy = GAME.clone(state)
        GAME.playout(copy, random.Random(2), "rollout")
        assert GAME.state_to_json(state) == before
        assert GAME.state_to_json(GAME.clone(copy)) == GAME.state_to_json(copy)

    @pytest.mark.parametrize(
        "change",
        [
            lambda d: d.update(game="classic"),
            lambda d: d.update(phase="lunch"),
            lambda d: d.update(rng=-1),
            lambda d: d["stock"].pop(),
            lambda d: d.update(suit="Z"),
            lambda d: d.update(totals=[1, 2]),
            lambda d: d.update(owed=2, skip=True),
            lambda d: d.update(to_act=7),
            lambda d: d.pop("options"),
        ],
    )
    def test_a_broken_state_is_refused(self, change):
        data = GAME.state_to_json(self._midgame())
        change(data)
        with pytest.raises(ValueError):
            GAME.state_from_json(data)


class TestLifecycle:
    def test_rounds_wait_for_the_next_deal(self):
        state = GAME.new_match(GAME.options_from_json({"players": 2}), 4)
        with pytest.raises(IllegalAction, match="still on"):
            GAME.next_round(state)
        GAME.playout(state, random.Random(4), "rollout")
        assert GAME.awaiting_deal(state) or GAME.is_over(state)
        assert GAME.to_act(state) is None and GAME.legal_actions(state) == []
        with pytest.raises(IllegalAction, match="wait for the next deal"):
            GAME.apply(state, DRAW)
        assert GAME.playout(state, random.Random(4), "rollout") == 0

    def test_a_match_ends_and_stays_over(self):
        state = GAME.new_match(GAME.options_from_json({"players": 2}), 4)
        rng = random.Random(4)
        while not GAME.is_over(state):
            if GAME.awaiting_deal(state):
                GAME.next_round(state)
            GAME.playout(state, rng, "rollout")
        assert max(state.totals) >= 101
        with pytest.raises(IllegalAction, match="The match is over"):
            GAME.next_round(state)
        with pytest.raises(IllegalAction, match="The match is over"):
            GAME.apply(state, DRAW)

    def test_unknown_playout_policy(self):
        with pytest.raises(ValueError, match="policy"):
            GAME.playout(GAME.new_match(GAME.options_from_json({}), 1), random.Random(1), "greedy")

    def test_a_playout_asks_each_seat_its_own_chooser(self):
        """One chooser per seat: every decision of seat ``s`` goes to chooser ``s``, and the round
        ends as it does with the same choosers given as one (they choose alike)."""
        state = GAME.new_match(GAME.options_from_json({"players": 3}), 6)
        asked: list[tuple[int, int]] = []

        def chooser_of(number: int):
            def choose(hands, seat, playable, other, rng):
                asked.append((number, seat))
                return rollout_choice(hands, seat, playable, other, rng)

            return choose

        per_seat = GAME.clone(state)
        GAME.playout(per_seat, random.Random(3), [chooser_of(seat) for seat in range(3)])
        assert asked and all(number == seat for number, seat in asked)
        assert {seat for _number, seat in asked} == {0, 1, 2}
        GAME.playout(state, random.Random(3), "rollout")
        assert GAME.state_to_json(per_seat) == GAME.state_to_json(state)

    def test_a_playout_needs_a_chooser_for_every_seat(self):
        state = GAME.new_match(GAME.options_from_json({"players": 3}), 6)
        with pytest.raises(ValueError, match="One chooser per seat"):
            GAME.playout(state, random.Random(1), [rollout_choice, rollout_choice])


def test_a_hand_is_charged_the_points_of_its_cards():
    rng = random.Random(8)
    for hand in [0, (1 << 54) - 1, *(rng.getrandbits(54) for _ in range(2000))]:
        assert hand_value(hand) == sum(POINTS[c] for c in cards_of(hand))
