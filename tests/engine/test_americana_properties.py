"""Properties over thousands of random Americana matches, under every option."""

import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameplay.engine import IllegalAction
from gameplay.engine.americana import DRAW, GAME, SIT_OUT, TAKE, play_action
from gameplay.engine.cards import CODES
from gameplay.engine.core import act

EVERY_ACTION = [
    DRAW,
    TAKE,
    SIT_OUT,
    *(play_action(c) for c in range(54)),
    *(play_action(c, s) for c in range(20, 24) for s in range(4)),
]
CARD_CODES = frozenset(CODES)
STRING = re.compile(r'"([^"]*)"')
BIT = tuple(1 << c for c in range(54))
MAX_DECISIONS = 20_000  # per match; far above any seen, so hitting it means a match that never ends

options_data = st.fixed_dictionaries(
    {
        "players": st.sampled_from([2, 3, 4]),
        "jokers": st.booleans(),
        "jack_draws_two": st.booleans(),
        "court_follows": st.booleans(),
        "target": st.sampled_from([101, 101, 301]),
    }
)
seeds = st.integers(min_value=0, max_value=2**64 - 1)
choice_seeds = st.integers(min_value=0, max_value=2**32)


def matches(count):
    """Hypothesis settings for ``count`` whole matches (kept so the file runs in well under a minute)."""
    return settings(max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_cards(state):
    """Every card of the deck is in exactly one place: a hand, the stock or the pile."""
    union = 0
    for hand in state.hands:
        assert not union & hand
        union |= hand
    loose = set(state.stock)
    loose.update(state.pile)
    assert len(loose) == len(state.stock) + len(state.pile)
    loose_mask = sum(map(BIT.__getitem__, loose))
    assert not union & loose_mask and union | loose_mask == (1 << state.options.deck_size) - 1
    assert not (state.owed and state.skip)


def codes_in(text):
    """Every card code among the strings of a JSON text."""
    return set(STRING.findall(text)) & CARD_CODES


def check_views(state):
    """A seat's view shows its own hand and the pile only (all hands once the round is over)."""
    pile = {CODES[c] for c in state.pile}
    hands = [{CODES[c] for c in range(54) if hand >> c & 1} for hand in state.hands]
    finished = GAME.awaiting_deal(state) or GAME.is_over(state)
    for seat in [None, *range(state.options.players)]:
        view = GAME.view(state, seat)
        text = json.dumps(view)
        assert json.loads(text) == view
        assert not {"stock", "rng", "seed"} & set(view)
        allowed = pile | (hands[seat] if seat is not None else set())
        if finished:
            allowed = allowed.union(*hands)
        assert codes_in(text) <= allowed
        assert view["stock_count"] == len(state.stock)


def check_actions(state, rng):
    """Every listed action applies; a sample of the others is refused and changes nothing."""
    legal = GAME.legal_actions(state)
    assert len(set(legal)) == len(legal)
    for action in legal:
        GAME.apply(GAME.clone(state), action)
    before = GAME.state_to_json(state)
    others = [action for action in EVERY_ACTION if action not in legal]
    for action in rng.sample(others, 6):
        try:
            GAME.apply(state, action)
        except IllegalAction as error:
            assert str(error)
        else:
            raise AssertionError(f"{action} was applied but not listed")
    assert GAME.state_to_json(state) == before


def check_round_trip(state):
    data = json.loads(json.dumps(GAME.state_to_json(state)))
    copy = GAME.state_from_json(data)
    assert GAME.state_to_json(copy) == data
    assert GAME.state_to_json(GAME.clone(state)) == data


def play_match(options, seed, rng, deep_checks):
    """Play a match through legal_actions/apply, checking as it goes; return the (seat, action JSON) list."""
    state = GAME.new_match(options, seed)
    moves = []
    while not GAME.is_over(state):
        assert len(moves) < MAX_DECISIONS, "the match does not end"
        if GAME.awaiting_deal(state):
            assert GAME.legal_actions(state) == [] and GAME.to_act(state) is None
            if rng.random() < deep_checks:
                check_views(state)
            GAME.next_round(state)
        check_cards(state)
        deep = rng.random() < deep_checks
        if deep:
            check_actions(state, rng)
            check_views(state)
            check_round_trip(state)
        legal = GAME.legal_actions(state)
        assert legal, "the seat to act always has something to do"
        # Lean towards playing cards so matches are not all drawing; still every action gets chosen.
        plays = [a for a in legal if a.type == "play"]
        action = rng.choice(plays if plays and rng.random() < 0.6 else legal)
        seat = GAME.to_act(state)
        events = act(GAME, state, seat, action)
        if deep:
            assert json.loads(json.dumps(events)) == events
            drew = [event for event in events if event["type"] in ("drew", "took")]
            assert all(set(event) == {"type", "seat", "count"} for event in drew)  # never which card
        moves.append((seat, GAME.action_to_json(action)))
    check_cards(state)
    check_views(state)
    check_round_trip(state)
    assert max(state.totals) >= options.target
    lowest = min(state.totals)
    winners = [seat for seat, total in enumerate(state.totals) if total == lowest]
    view = GAME.view(state, None)
    assert view["winners"] == (winners if len(winners) == 1 else [])
    assert view["losers"] == [seat for seat, total in enumerate(state.totals) if total >= options.target]
    return state, moves


@matches(700)
@given(options_data, seeds, choice_seeds)
def test_random_matches_keep_every_rule_and_replay_exactly(data, seed, choices):
    options = GAME.options_from_json(data)
    rng = random.Random(choices)
    state, moves = play_match(options, seed, rng, deep_checks=0.03)
    # Replay from (options, seed, actions) alone, dealing when the runner would.
    replay = GAME.new_match(GAME.options_from_json(data), seed)
    for seat, action in moves:
        if GAME.awaiting_deal(replay):
            GAME.next_round(replay)
        act(GAME, replay, seat, GAME.action_from_json(action))
    assert GAME.state_to_json(replay) == GAME.state_to_json(state)


@matches(1000)
@given(options_data, seeds, choice_seeds, st.sampled_from(["random", "rollout"]))
def test_the_playout_fast_path_agrees_with_legal_actions_and_apply(data, seed, choices, policy):
    options = GAME.options_from_json(data)
    fast = GAME.new_match(options, seed)
    readable = GAME.clone(fast)
    rng = random.Random(choices)
    rounds = 0
    while True:
        record: list = []
        decisions = GAME.playout(fast, rng, policy, record)
        assert decisions == len(record)
        for action, count in record:
            legal = GAME.legal_actions(readable)
            assert action in legal and count == len(legal)
            if policy == "rollout" and action.type != "play":
                assert not [a for a in legal if a.type == "play"]
            GAME.apply(readable, action)
        assert GAME.state_to_json(readable) == GAME.state_to_json(fast)
        rounds += 1
        if GAME.is_over(fast):
            break
        assert rounds < 500, "the match does not end"
        GAME.next_round(fast)
        GAME.next_round(readable)
