"""A match review: judged from the seat's information only, the same on the same seed, labelled and
scored by the thresholds."""

import dataclasses
import json
import math
from typing import Any

import pytest

from bots import review
from bots.arena import bot_played_actions
from gameplay.engine import get_game
from gameplay.engine.core import Event

GAMES = ("americana", "classic")
FEW = 8
"""Positions a decision in these tests: enough to exercise every path, cheap for the suite."""
OPTIONS = {"players": 2}
SEED = 11


def played(game_name: str, players: int = 2, levels: tuple[str, ...] = ("easy", "normal")) -> list[dict]:
    return bot_played_actions(game_name, {"players": players}, SEED, [levels[s % 2] for s in range(players)])


def replay_round_one(game_name: str, start: dict, actions: list[dict], upto: int) -> tuple[Any, list[Event]]:
    """The state (from ``start``, round 1's deal as JSON) and the round's public events after the
    first ``upto`` actions."""
    game = get_game(game_name)
    state = game.state_from_json(start)
    history: list[Event] = []
    for action in actions[:upto]:
        history += game.apply(state, game.action_from_json(action))
    return state, history


def point_at(game_name: str, state: Any, history: list[Event], number: int, made: dict) -> review.Point:
    """A decision as ``decision_points`` builds one, from a state rather than a record."""
    game = get_game(game_name)
    seat = game.to_act(state)
    legal = [game.action_to_json(a) for a in game.legal_actions(state)]
    return review.Point(
        number=number,
        seat=seat,
        round=game.round_number(state),
        view=dict(game.view(state, seat)),
        legal=legal,
        history=list(history),
        chosen=legal.index(made),
    )


def swap(hand: list[str], card: str, other: list[str], into: str) -> None:
    hand[hand.index(card)] = into
    other[other.index(into)] = card


@pytest.mark.parametrize(
    ("game_name", "players", "where"),
    [("americana", 2, "stock"), ("classic", 2, "stock"), ("americana", 3, "hands"), ("classic", 3, "hands")],
)
def test_the_canary_a_hidden_card_dealt_elsewhere_changes_no_judgement(game_name, players, where):
    """Round 1 dealt again with a card of seat 1's hand swapped for one of the stock (or of seat 2's
    hand), both hidden from seat 0 until its decision: seat 0's view and the round's events come out
    the same, and so does every value the review gives."""
    game = get_game(game_name)
    actions = played(game_name, players)
    start = game.new_match(game.options_from_json({"players": players}), SEED)
    dealt = game.state_to_json(start)
    state, history = start, []
    for upto, action in enumerate(actions):
        if game.round_number(state) != 1 or game.awaiting_deal(state):
            pytest.fail("no decision of seat 0 late enough in round 1")
        if upto >= 3 and game.to_act(state) == 0 and len(game.legal_actions(state)) > 1:
            break
        history += game.apply(state, game.action_from_json(action))
    now = game.state_to_json(state)
    other_hand = 2 if where == "hands" else None
    kept_by_one = [c for c in dealt["hands"][1] if c in now["hands"][1]]
    kept_elsewhere = [
        c
        for c in (dealt["stock"] if other_hand is None else dealt["hands"][other_hand])
        if c in (now["stock"] if other_hand is None else now["hands"][other_hand])
    ]
    assert kept_by_one and kept_elsewhere, "both cards must stay hidden up to the decision"
    moved = json.loads(json.dumps(dealt))
    swap(
        moved["hands"][1],
        kept_by_one[0],
        moved["stock"] if other_hand is None else moved["hands"][other_hand],
        kept_elsewhere[-1],
    )
    other, other_history = replay_round_one(game_name, moved, actions, upto)
    assert game.state_to_json(other) != now, "the hidden cards differ"
    assert game.view(other, 0) == game.view(state, 0)
    assert other_history == history
    first = review.judge(
        game_name, point_at(game_name, state, history, upto + 1, actions[upto]), seed=5, positions=FEW
    )
    again = review.judge(
        game_name, point_at(game_name, other, other_history, upto + 1, actions[upto]), seed=5, positions=FEW
    )
    assert again == first


@pytest.mark.parametrize("game_name", GAMES)
def test_a_decision_point_holds_no_card_another_seat_still_hides(game_name):
    game = get_game(game_name)
    actions = played(game_name, 3)
    options = {"players": 3}
    points = {p.number: p for p in review.decision_points(game_name, options, SEED, actions, seats=[0])}
    assert points
    state = game.new_match(game.options_from_json(options), SEED)
    checked = 0
    for number, action in enumerate(actions, start=1):
        if game.awaiting_deal(state):
            game.next_round(state)
        if number in points:
            hidden = [
                c for seat, hand in enumerate(game.state_to_json(state)["hands"]) if seat != 0 for c in hand
            ]
            seen = json.dumps([points[number].view, points[number].legal])
            assert hidden and not [c for c in hidden if f'"{c}"' in seen], number
            checked += 1
        game.apply(state, game.action_from_json(action))
    assert checked == len(points)


@pytest.mark.parametrize("game_name", GAMES)
def test_the_same_point_and_seed_judge_alike_whatever_came_before(game_name):
    points = review.decision_points(game_name, OPTIONS, SEED, played(game_name), seats=[0, 1])[:4]
    alone = review.judge(game_name, points[-1], seed=3, positions=FEW)
    for point in points[:-1]:
        review.judge(game_name, point, seed=4, positions=FEW)
    assert review.judge(game_name, points[-1], seed=3, positions=FEW) == alone


@pytest.mark.parametrize("game_name", GAMES)
def test_other_seeds_differ_a_little_and_mostly_agree_on_the_labels(game_name):
    """At the review's own number of positions (fewer would scatter the labels)."""
    points = review.decision_points(game_name, OPTIONS, SEED, played(game_name), seats=[0, 1])[:4]
    first = [review.judge(game_name, point, seed=1) for point in points]
    second = [review.judge(game_name, point, seed=2) for point in points]
    assert [j.values for j in first] != [j.values for j in second]
    same = sum(a.label == b.label for a, b in zip(first, second, strict=True))
    assert same >= 0.75 * len(points), (same, [(a.loss, b.loss) for a, b in zip(first, second, strict=True)])


@pytest.mark.parametrize("game_name", GAMES)
def test_labels_begin_at_each_threshold(game_name):
    limits = review.THRESHOLDS[game_name]
    assert review.label_of(game_name, 0.0) == ""
    below = ""
    for label, limit in zip(review.LABELS, (limits.inaccuracy, limits.mistake, limits.blunder), strict=True):
        assert review.label_of(game_name, limit - 1e-6) == below
        assert review.label_of(game_name, limit) == label
        assert review.label_of(game_name, limit + 1e-6) == label
        below = label
    assert review.label_of(game_name, 100 * limits.blunder) == "blunder"


@pytest.mark.parametrize("game_name", GAMES)
def test_accuracy_is_100_for_the_best_action_and_falls_with_the_loss(game_name):
    scale = review.THRESHOLDS[game_name].scale
    assert review.decision_accuracy(game_name, 0.0) == 100.0
    assert review.decision_accuracy(game_name, scale) == pytest.approx(100 / math.e)
    losses = [0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0]
    accuracies = [review.decision_accuracy(game_name, loss) for loss in losses]
    assert accuracies == sorted(accuracies, reverse=True) and len(set(accuracies)) == len(accuracies)


@pytest.mark.parametrize("game_name", GAMES)
def test_one_blunder_among_good_moves_costs_more_than_a_plain_mean(game_name):
    losses = [0.0] * 9 + [review.THRESHOLDS[game_name].blunder]
    plain = sum(review.decision_accuracy(game_name, loss) for loss in losses) / len(losses)
    accuracy = review.match_accuracy(game_name, losses)
    assert accuracy is not None and accuracy < plain
    assert review.match_accuracy(game_name, [0.0] * 10) == pytest.approx(100.0)
    assert review.match_accuracy(game_name, []) is None


@pytest.mark.parametrize("game_name", GAMES)
def test_only_the_judged_moves_with_a_real_choice_are_reviewed(game_name):
    game = get_game(game_name)
    actions = played(game_name)
    with_choice = set()
    state = game.new_match(game.options_from_json(OPTIONS), SEED)
    for number, action in enumerate(actions, start=1):
        if game.awaiting_deal(state):
            game.next_round(state)
        if len(game.legal_actions(state)) > 1:
            with_choice.add(number)
        game.apply(state, game.action_from_json(action))
    assert len(with_choice) < len(actions), "the match has forced moves to leave out"
    every = review.decision_points(game_name, OPTIONS, SEED, actions, seats=[0, 1])
    assert {p.number for p in every} == with_choice
    even = review.review(
        game_name,
        OPTIONS,
        SEED,
        actions[:30],
        seats=[0, 1],
        judged=lambda number: number % 2 == 0,
        positions=FEW,
    )
    assert even and {j.number for j in even} == {n for n in with_choice if n <= 30 and n % 2 == 0}


@pytest.mark.parametrize("game_name", GAMES)
def test_the_best_action_is_never_worse_than_the_chosen(game_name):
    points = review.decision_points(game_name, OPTIONS, SEED, played(game_name), seats=[0, 1])[:12]
    for point in points:
        judged = review.judge(game_name, point, seed=2, positions=FEW)
        assert judged.values[judged.best] == max(judged.values)
        assert judged.loss >= 0
        assert judged.loss == pytest.approx(
            judged.values[judged.best] - judged.values[judged.chosen], abs=1e-3
        )
        assert judged.label == review.label_of(game_name, judged.loss)
        best_chosen = review.judge(
            game_name, dataclasses.replace(point, chosen=judged.best), seed=2, positions=FEW
        )
        assert best_chosen.values == judged.values
        assert (best_chosen.best, best_chosen.loss, best_chosen.label) == (judged.best, 0.0, "")
