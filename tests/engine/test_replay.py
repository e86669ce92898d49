"""A match replays from (game, options, seed, actions): whole, cut short to resume, or refused at the
step that does not replay."""

import pytest

from bots.arena import bot_played_actions
from gameplay.engine import get_game
from gameplay.engine.replay import MAX_SEED, ReplayError, replay

MATCHES = [
    ("americana", {"players": 2, "target": 101}),
    ("americana", {"players": 3, "target": 101, "jokers": True}),
    ("classic", {"players": 2, "match": "points8"}),
    ("classic", {"players": 4, "match": "games1"}),
]


@pytest.fixture(params=MATCHES, ids=lambda match: f"{match[0]}-{match[1]['players']}")
def played(request) -> tuple[str, dict, int, list[dict]]:
    game, options = request.param
    return game, options, 7, bot_played_actions(game, options, 7, ["easy", "normal", "easy", "normal"])


def test_a_whole_match_replays_to_its_end(played):
    game_name, options, seed, actions = played
    replayed = replay(game_name, options, seed, actions)
    game = replayed.game
    assert game.is_over(replayed.state)
    assert [move.action for move in replayed.moves] == actions
    rounds = game.round_number(replayed.state)
    ended = [move.round_over.number for move in replayed.moves if move.round_over]
    assert ended == list(range(1, rounds + 1))
    assert sum(move.dealt is not None for move in replayed.moves) == rounds - 1
    assert replayed.moves[-1].round_over.public["winners"]
    assert all(move.events for move in replayed.moves)


def test_a_match_cut_short_resumes_where_it_stopped(played):
    """The browser resumes from the saved actions: replaying a prefix, then the rest, ends where the whole
    record does."""
    game_name, options, seed, actions = played
    cut = len(actions) // 2
    resumed = replay(game_name, options, seed, actions[:cut])
    game = resumed.game
    assert not game.is_over(resumed.state)
    for action in actions[cut:]:
        if game.awaiting_deal(resumed.state):
            game.next_round(resumed.state)
        game.apply(resumed.state, game.action_from_json(action))
    whole = replay(game_name, options, seed, actions)
    assert game.state_to_json(resumed.state) == game.state_to_json(whole.state)


def test_an_illegal_step_is_refused_with_its_number(played):
    game_name, options, seed, actions = played
    played_at = next(i for i in range(len(actions) // 2, len(actions)) if actions[i]["type"] == "play")
    tampered = [*actions[: played_at + 1], actions[played_at], *actions[played_at + 1 :]]  # played twice
    step = played_at + 2
    with pytest.raises(ReplayError) as refused:
        replay(game_name, options, seed, tampered)
    assert refused.value.step == step
    assert str(refused.value).startswith(f"Action {step}: ")


def test_a_changed_seed_does_not_replay(played):
    game_name, options, seed, actions = played
    with pytest.raises(ReplayError) as refused:
        replay(game_name, options, seed + 1, actions)
    assert 1 <= refused.value.step <= len(actions)


def test_no_action_after_the_end(played):
    game_name, options, seed, actions = played
    with pytest.raises(ReplayError) as refused:
        replay(game_name, options, seed, [*actions, actions[-1]])
    assert refused.value.step == len(actions) + 1
    assert str(refused.value) == f"Action {len(actions) + 1}: The match is over."


@pytest.mark.parametrize(
    ("game_name", "options", "seed"),
    [
        ("poker", {}, 1),
        ("americana", {"players": 5}, 1),
        ("classic", [], 1),
        ("classic", {}, -1),
        ("classic", {}, MAX_SEED + 1),
        ("classic", {}, True),
        ("classic", {}, "12"),
    ],
)
def test_a_match_that_cannot_start_fails_at_step_zero(game_name, options, seed):
    with pytest.raises(ReplayError) as refused:
        replay(game_name, options, seed, [])
    assert refused.value.step == 0


@pytest.mark.parametrize("action", [{"type": "fly"}, "play", {"type": "play", "card": "1Z"}, None])
def test_a_malformed_action_is_refused_at_its_step(action):
    options = {"players": 2}
    first = bot_played_actions("classic", options, 3, ["easy", "easy"])[0]
    with pytest.raises(ReplayError) as refused:
        replay("classic", options, 3, [first, action])
    assert refused.value.step == 2


def test_the_largest_seed_replays():
    game = get_game("classic")
    assert not game.is_over(replay("classic", {}, MAX_SEED, []).state)
