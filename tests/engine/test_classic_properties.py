"""Properties of classic Șeptică over thousands of random matches (every player count and format).

Matches are driven by a seeded ``random.Random`` so each hypothesis example is one reproducible match.
"""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameplay.engine.cards import CODES
from gameplay.engine.classic import DECKS, END, GAME, PLAYS, TAKE_TRICK
from gameplay.engine.core import IllegalAction, act

EVERY_ACTION = [*PLAYS.values(), END, TAKE_TRICK]
OPTIONS = st.builds(
    lambda players, match, lead: GAME.options_from_json({"players": players, "match": match, "lead": lead}),
    st.sampled_from([2, 3, 4]),
    st.sampled_from(["points8", "points21", "games1", "games2", "games3"]),
    st.sampled_from(["rotate", "winner"]),
)
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
MAX_DEALS = 200  # far beyond any real match; a longer one means the match does not terminate


def examples(count):
    return settings(max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def steps(options, seed):
    """Yield (state, action) for a whole random match, applying each action after the yield."""
    rng = random.Random(seed)
    state = GAME.new_match(options, seed)
    while not GAME.is_over(state):
        if GAME.awaiting_deal(state):
            GAME.next_round(state)
        assert state.deal <= MAX_DEALS
        action = rng.choice(GAME.legal_actions(state))
        yield state, action
        GAME.apply(state, action)


def check_conservation(state):
    """Every card of the deck is in exactly one place: a hand, the stock, the trick or a captured pile."""
    places = [*state.hands, state.stock, state.trick, *state.won]
    assert sorted(c for place in places for c in place) == sorted(DECKS[state.options.players])
    assert state.captured == [sum(CODES[c][:-1] in ("10", "A") for c in won) for won in state.won]
    if not state.trick:
        assert len({len(hand) for hand in state.hands}) == 1


def check_hidden(state, seat):
    """A seat's view names no card of another hand or of the stock, and nothing of the RNG or seed."""
    view = GAME.view(state, seat)
    text = json.dumps(view)
    assert json.loads(text) == view
    strings = set()

    def collect(value):
        if isinstance(value, dict):
            assert not {"rng", "seed", "stock"} & set(value)
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, str):
            strings.add(value)

    collect(view)
    hidden = {CODES[c] for c in state.stock}
    hidden |= {CODES[c] for other, hand in enumerate(state.hands) if other != seat for c in hand}
    assert not strings & hidden
    assert str(state.rng.state) not in text


@examples(250)
@given(OPTIONS, SEEDS)
def test_every_step_keeps_the_invariants(options, seed):
    chooser = random.Random(seed ^ 1)
    for state, action in steps(options, seed):
        check_conservation(state)
        data = GAME.state_to_json(state)
        assert GAME.state_to_json(GAME.state_from_json(json.loads(json.dumps(data)))) == data
        for seat in [None, *range(options.players)]:
            check_hidden(state, seat)
        legal = GAME.legal_actions(state)
        assert legal == GAME.legal_actions(state) and len(set(legal)) == len(legal)
        for each in legal:
            GAME.apply(GAME.clone(state), each)
        seat = GAME.to_act(state)
        others = [a for a in EVERY_ACTION if a not in legal]
        for refused in chooser.sample(others, 3):
            with pytest.raises(IllegalAction) as error:
                act(GAME, state, seat, refused)
            assert str(error.value).endswith(".")
        other_seat = (seat + 1 + chooser.randrange(options.players - 1)) % options.players
        with pytest.raises(IllegalAction):
            act(GAME, state, other_seat, action)
        assert GAME.state_to_json(state) == data, "a refused action changed the state"
    check_conservation(state)
    assert GAME.legal_actions(state) == [] and GAME.to_act(state) is None
    assert GAME.scenario_report(state)["match_over"]


@examples(1500)
@given(OPTIONS, SEEDS)
def test_matches_end_and_replay_exactly_from_options_seed_and_actions(options, seed):
    actions = []
    deals = 0
    for state, action in steps(options, seed):
        actions.append(action)
        deals = state.deal
    final = GAME.state_to_json(state)
    assert final["phase"] == "match_over" and final["deal"] == deals
    check_conservation(state)
    replay = GAME.new_match(options, seed)
    for action in actions:
        if GAME.awaiting_deal(replay):
            GAME.next_round(replay)
        GAME.apply(replay, GAME.action_from_json(GAME.action_to_json(action)))
    assert GAME.state_to_json(replay) == final


@examples(1500)
@given(OPTIONS, SEEDS, st.integers(min_value=0, max_value=60), st.sampled_from(["random", "rollout"]))
def test_the_playout_fast_path_agrees_with_apply(options, seed, skip, policy):
    """From any point of a deal, replaying the playout's chosen actions through apply gives the same state."""
    rng = random.Random(seed)
    state = GAME.new_match(options, seed)
    for _ in range(skip):
        if GAME.awaiting_deal(state) or GAME.is_over(state):
            break
        GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    replay = GAME.clone(state)
    record = []
    decisions = GAME.playout(state, random.Random(seed + 1), policy, record)
    assert decisions == len(record)
    for action in record:
        assert action in GAME.legal_actions(replay)
        if policy == "rollout" and action is END:
            pytest.fail("the rollout policy ended a trick it could continue")
        GAME.apply(replay, action)
    assert GAME.state_to_json(replay) == GAME.state_to_json(state)
    assert GAME.awaiting_deal(state) or GAME.is_over(state)
    check_conservation(state)
    assert GAME.playout(state, rng, policy) == 0


def test_the_random_playout_sometimes_ends_and_sometimes_continues():
    chosen = set()
    for seed in range(200):
        record = []
        GAME.playout(
            GAME.new_match(GAME.options_from_json({"players": 2}), seed),
            random.Random(seed),
            "random",
            record,
        )
        chosen |= {action.type for action in record}
    assert chosen == {"play", "end", "take"}


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="Unknown policy"):
        GAME.playout(GAME.new_match(GAME.options_from_json({}), 1), random.Random(1), "greedy")
