"""One rulebook per game: over many random states, ``apply`` accepts exactly the actions
``legal_actions`` lists, out of every action a player could try."""

import random

import pytest

from gameplay.engine import IllegalAction, americana, classic, get_game, play_refusals

AMERICANA_TRIES = [
    americana.DRAW,
    americana.TAKE,
    americana.SIT_OUT,
    *(americana.Action("play", c, suit) for c in range(54) for suit in range(-1, 4)),
]
CLASSIC_TRIES = [*classic.PLAYS.values(), classic.END, classic.TAKE_TRICK]
OPTIONS = [
    ("americana", {"players": 2, "jokers": True, "jack_draws_two": True}),
    ("americana", {"players": 3, "court_follows": True}),
    ("americana", {"players": 4, "jokers": True, "court_follows": True}),
    ("classic", {"players": 2}),
    ("classic", {"players": 3, "lead": "winner"}),
    ("classic", {"players": 4, "match": "games2"}),
]


def random_states(name, options, seed, count):
    """``count`` states of a match played at random (leaning to cards, so matches move on)."""
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_match(game.options_from_json(options), seed)
    for _ in range(count):
        if game.is_over(state):
            state = game.new_match(game.options_from_json(options), rng.randrange(1 << 30))
        if game.awaiting_deal(state):
            game.next_round(state)
        yield state
        legal = game.legal_actions(state)
        plays = [a for a in legal if a.type == "play"]
        game.apply(state, rng.choice(plays if plays and rng.random() < 0.7 else legal))


@pytest.mark.parametrize(("name", "options"), OPTIONS)
def test_apply_accepts_exactly_the_listed_actions(name, options):
    game = get_game(name)
    tries = AMERICANA_TRIES if name == "americana" else CLASSIC_TRIES
    for state in random_states(name, options, seed=len(str(options)), count=300):
        legal = game.legal_actions(state)
        accepted = []
        for action in tries:
            try:
                game.apply(game.clone(state), action)
            except IllegalAction:
                continue
            accepted.append(action)
        assert sorted(map(str, accepted)) == sorted(map(str, legal))
        assert len(set(legal)) == len(legal)


@pytest.mark.parametrize(("name", "options"), OPTIONS)
def test_play_refusals_say_before_a_card_is_sent_what_apply_would_raise(name, options):
    """Each card the seat to act holds but may not play has the sentence ``apply`` raises for it
    (a seven's whatever suit it names); each card it may play has none; nothing changes."""
    game = get_game(name)
    refused_some = False
    for state in random_states(name, options, seed=7, count=300):
        before = game.state_to_json(state)
        refusals = play_refusals(game, state)
        assert game.state_to_json(state) == before
        seat = game.to_act(state)
        hand = game.view(state, seat)["hand"] if seat is not None else []
        playable = {
            data["card"] for data in map(game.action_to_json, game.legal_actions(state)) if "card" in data
        }
        assert set(refusals) == set(hand) - playable
        for code, refusal in refusals.items():
            for suit in ("S", "H") if name == "americana" and code[:-1] == "7" else (None,):
                tried = {"type": "play", "card": code} | ({"suit": suit} if suit else {})
                with pytest.raises(IllegalAction) as raised:
                    game.apply(game.clone(state), game.action_from_json(tried))
                assert (raised.value.template, raised.value.params) == (refusal.template, refusal.params)
        refused_some = refused_some or bool(refusals)
    assert refused_some
