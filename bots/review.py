"""A finished match reviewed: each decision of a seat judged by what it cost, from what the seat knew.

For every decision with a real choice (two or more legal actions) the hard player's search is set up
from the seat's view, its legal actions and the round's public events only, exactly what the seat's
screen knew then, and every legal action is played out on the same ``POSITIONS`` positions sampled
from that information (``mean_scores``). An action's value is in the game's own unit:

- Americana: the expected lead in the match's points once the round is over (the lowest total of
  the others less the seat's own; the lowest total wins), so a round's charge and the standing both
  count;
- classic: the expected tens and aces of the deal for the seat's side less the others' mean.

The loss of a decision is the best value less the chosen one's; ``THRESHOLDS`` label it and turn it
into an accuracy. Nothing here imports more than the engine and the policies, so the same code
reviews a match on the server's worker and a practice match in the browser.
"""

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from gameplay.engine import get_game
from gameplay.engine.core import Event, Game

from .policies import americana, classic
from .policies.search import Search, mean_scores

POSITIONS = {"americana": 400, "classic": 1000}
"""Sampled positions a decision's actions are all played out on, by game: enough for two reviews with
other seeds to give the same label to nine decisions in ten (``manage.py reviewbench`` measures it).
Classic's random playouts scatter more, so it takes more of them (each is cheaper)."""
FORMAT = 1
"""The version of a stored review's shape and method: bumped when either changes."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Where a loss (in the game's unit) becomes an inaccuracy, a mistake and a blunder, and the loss
    that takes a decision's accuracy to 100/e (37)."""

    inaccuracy: float
    mistake: float
    blunder: float
    scale: float


THRESHOLDS = {
    "americana": Thresholds(inaccuracy=3.0, mistake=6.0, blunder=10.0, scale=6.0),
    "classic": Thresholds(inaccuracy=0.5, mistake=1.0, blunder=2.0, scale=1.0),
}
"""Chosen from the losses of bots playing themselves (docs/benchmarks.md, "Reviews"): a strong bot's decisions
seldom pass ``inaccuracy``, a beginner's often pass ``blunder``."""

LABELS = ("inaccuracy", "mistake", "blunder")


def label_of(game: str, loss: float) -> str:
    """The mark for a decision that lost ``loss``: "" (good), or one of ``LABELS``."""
    limits = THRESHOLDS[game]
    if loss >= limits.blunder:
        return "blunder"
    if loss >= limits.mistake:
        return "mistake"
    if loss >= limits.inaccuracy:
        return "inaccuracy"
    return ""


def decision_accuracy(game: str, loss: float) -> float:
    """100 for the best action, falling by a factor e with every ``scale`` of loss."""
    return 100.0 * math.exp(-max(0.0, loss) / THRESHOLDS[game].scale)


def match_accuracy(game: str, losses: Iterable[float]) -> float | None:
    """The match's accuracy, 0–100, from its decisions' losses: the mean of the decisions' accuracies'
    arithmetic and harmonic means (as lichess does, so one blunder among many good moves counts more
    than in a plain average); None with no decision to judge."""
    each = [max(1.0, decision_accuracy(game, loss)) for loss in losses]
    if not each:
        return None
    arithmetic = sum(each) / len(each)
    harmonic = len(each) / sum(1 / a for a in each)
    return (arithmetic + harmonic) / 2


@dataclass(frozen=True, slots=True)
class Point:
    """A decision to judge: what the seat knew then (its view, its legal actions, the round's public
    events) and what it did."""

    number: int
    """The move's number in the match, from 1 (the record's ``seq``)."""
    seat: int
    round: int
    view: dict
    legal: list[dict]
    history: list[Event]
    chosen: int
    """Index in ``legal`` of the action made."""


@dataclass(frozen=True, slots=True)
class Judged:
    """A decision judged: every legal action with its expected value, the best, and what the chosen
    one lost against it."""

    number: int
    seat: int
    round: int
    actions: list[dict]
    values: list[float]
    chosen: int
    best: int
    loss: float
    label: str

    @property
    def expected(self) -> float:
        """The chosen action's expected value: where the seat stood after this decision."""
        return self.values[self.chosen]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def decision_points(
    game_name: str,
    options: dict,
    seed: int,
    actions: Sequence[dict],
    *,
    seats: Iterable[int],
    judged: Callable[[int], bool] = lambda number: True,
) -> list[Point]:
    """Every decision of ``seats`` in the match (game, options, seed, every seat's actions in order)
    with two or more legal actions, except those ``judged(number)`` leaves out (a bot's, a stand-in's).
    The record must replay (a stored match's does; a practice record is checked before)."""
    game = get_game(game_name)
    wanted = set(seats)
    state = game.new_match(game.options_from_json(options), seed)
    history: list[Event] = []
    points = []
    for number, action in enumerate(actions, start=1):
        if game.awaiting_deal(state):
            history = game.next_round(state)
        seat = game.to_act(state)
        made = game.action_from_json(action)
        if seat in wanted and judged(number):
            legal = game.legal_actions(state)
            if len(legal) > 1:
                points.append(
                    Point(
                        number=number,
                        seat=seat,
                        round=game.round_number(state),
                        view=dict(game.view(state, seat)),
                        legal=[game.action_to_json(a) for a in legal],
                        history=list(history),
                        chosen=legal.index(made),
                    )
                )
        history += game.apply(state, made)
    return points


def _search(game: Game, point: Point, rng: random.Random) -> Search:
    if game.name == "americana":
        return americana.search(point.view, point.legal, rng, point.history, match_won=0)
    return classic.search(point.view, point.legal, rng, point.history)


def judge(game_name: str, point: Point, *, seed: int, positions: int | None = None) -> Judged:
    """``point`` judged from the seat's information only; the same (point, seed) always judges alike,
    whatever else was reviewed before it."""
    game = get_game(game_name)
    found = _search(game, point, random.Random(f"{seed}:{point.number}"))
    rng = random.Random(f"{seed}:{point.number}:positions")
    scores = mean_scores(found, rng, positions=positions or POSITIONS[game_name])
    by_action = {id(action): score for action, score in zip(found.actions, scores, strict=True)}
    values = [round(by_action[id(action)], 3) for action in point.legal]
    best = max(range(len(values)), key=lambda i: (values[i], i == point.chosen))
    loss = round(max(0.0, values[best] - values[point.chosen]), 3)
    return Judged(
        number=point.number,
        seat=point.seat,
        round=point.round,
        actions=point.legal,
        values=values,
        chosen=point.chosen,
        best=best,
        loss=loss,
        label=label_of(game_name, loss),
    )


def review(
    game_name: str,
    options: dict,
    seed: int,
    actions: Sequence[dict],
    *,
    seats: Iterable[int],
    judged: Callable[[int], bool] = lambda number: True,
    review_seed: int = 0,
    positions: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Judged]:
    """Every decision of ``seats`` judged (see ``decision_points`` and ``judge``); ``progress(done,
    total)`` is told after each."""
    points = decision_points(game_name, options, seed, actions, seats=seats, judged=judged)
    reviewed = []
    for done, point in enumerate(points, start=1):
        reviewed.append(judge(game_name, point, seed=review_seed, positions=positions))
        if progress is not None:
            progress(done, len(points))
    return reviewed
