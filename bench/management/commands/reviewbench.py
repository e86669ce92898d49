"""``manage.py reviewbench``: what a match review says of bots of each level, and what it costs.

For each game, ``--matches`` matches of easy, normal and hard bots each playing themselves (every seat
at one level, the same deals for every level) on the engine alone, and every seat of every match
reviewed as a person's would be (``bots.review``). Every seat, not seat 0 only: the seats of a match
are all of one level, so each is a sample of it, and the review's cost is per decision, so the same
play time gives ``--players`` times the decisions. Hard plays at ``--budget`` (smaller than the
table's, to keep the play affordable; the review's own search is ``--positions`` playouts an action
whatever the level played).

Prints per level the mean match accuracy (a reviewed seat's, 0–100) with a 95% bootstrap interval over
the matches, and whether the levels come out in order (hard > normal > easy); the share of decisions
under each label and the loss quantiles (the data the thresholds are chosen from); the review's time
per decision and per match, and what a 100-decision match takes (goal: 30 s of one core or less); and,
on the first ``--agreement-matches`` matches of each level reviewed again with another seed, the share
of decisions given the same label (goal: 90% or more), at the thresholds and with ``--thresholds``
other candidates. ``--save`` writes every decision's losses as JSON for choosing thresholds offline.
A benchmark prints numbers; it asserts nothing.
"""

import json
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

from django.core.management.base import BaseCommand, CommandParser

from bots import review
from bots.arena import _InProcess, play_through
from bots.policies import DEFAULT_BUDGET, LEVELS
from gameplay.engine import GAME_NAMES, get_game

QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99)
BOOTSTRAP_RESAMPLES = 2000
HARD_BUDGET = 0.05
"""Hard's seconds a decision in the bench's play: a third of the table's, so a run of hard matches
costs about what its review does."""
DECISION_GOAL_SECONDS = 30.0
"""A 100-decision match reviewed on one core."""
AGREEMENT_GOAL = 0.9


@dataclass
class MatchReview:
    """One match's review: each reviewed seat's match accuracy, each decision's loss, the review's
    CPU seconds for it (the machine may be shared), and (on the agreement matches) its loss under the
    second review seed."""

    level: str
    accuracies: list[float]
    losses: list[float]
    seconds: list[float]
    again: list[float] | None


def bot_match(game_name: str, players: int, level: str, seed: int, budget: float) -> list[dict]:
    """Every action of a match of bots of ``level`` at every seat, each with its own random source and
    the round's public events, as the table plays them."""
    game = get_game(game_name)
    state = game.new_match(game.options_from_json({"players": players}), seed)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(players)]
    return play_through(game, state, [level] * players, rngs, budget=budget)


def review_match(
    game_name: str,
    players: int,
    level: str,
    seed: int,
    budget: float,
    positions: int | None,
    review_seeds: tuple[int, ...],
) -> MatchReview:
    """Play a match and review every seat with ``review_seeds[0]``, then again with the next seed if
    one is given (the same decisions, another sample of positions)."""
    options = {"players": players}
    actions = bot_match(game_name, players, level, seed, budget)
    points = review.decision_points(game_name, options, seed, actions, seats=range(players))
    judged, seconds = [], []
    for point in points:
        started = time.process_time()
        judged.append(review.judge(game_name, point, seed=review_seeds[0], positions=positions))
        seconds.append(time.process_time() - started)
    again = None
    if len(review_seeds) > 1:
        again = [
            review.judge(game_name, point, seed=review_seeds[1], positions=positions).loss for point in points
        ]
    accuracies = [
        review.match_accuracy(game_name, [j.loss for j in judged if j.seat == seat])
        for seat in range(players)
    ]
    return MatchReview(
        level=level,
        accuracies=[a for a in accuracies if a is not None],
        losses=[j.loss for j in judged],
        seconds=seconds,
        again=again,
    )


def quantile(values: list[float], share: float) -> float:
    """The nearest-rank quantile of ``values`` (not empty)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def bootstrap_interval(values: list[float], seed: int) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval for the mean of ``values``."""
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(values, k=len(values))) for _ in range(BOOTSTRAP_RESAMPLES))
    return quantile(means, 0.025), quantile(means, 0.975)


def labels_under(limits: review.Thresholds, losses: list[float]) -> list[str]:
    """Each loss's label under ``limits``: ``review.label_of`` at candidate thresholds."""
    marks = ("", *review.LABELS)
    bounds = (limits.inaccuracy, limits.mistake, limits.blunder)
    return [marks[sum(loss >= bound for bound in bounds)] for loss in losses]


def agreement(reviews: list[MatchReview], limits: review.Thresholds) -> tuple[float, int]:
    """The share of the twice-reviewed decisions given the same label both times, and how many."""
    first = [loss for r in reviews if r.again is not None for loss in r.losses]
    second = [loss for r in reviews if r.again is not None for loss in r.again]
    same = sum(a == b for a, b in zip(labels_under(limits, first), labels_under(limits, second), strict=True))
    return (same / len(first) if first else 0.0), len(first)


def parse_thresholds(text: str) -> tuple[float, float, float]:
    inaccuracy, mistake, blunder = (float(part) for part in text.split("/"))
    return inaccuracy, mistake, blunder


class Command(BaseCommand):
    help = "Review bots' matches of each level: accuracy, labels, loss quantiles, time, seed agreement."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, default=100, help="Matches a level and game.")
        parser.add_argument("--game", choices=(*GAME_NAMES, "both"), default="both")
        parser.add_argument(
            "--players", type=int, choices=(2, 3, 4), default=2, help="Seats a match (default 2)."
        )
        parser.add_argument("--jobs", type=int, default=1, help="Processes playing and reviewing matches.")
        parser.add_argument("--seed", type=int, default=1, help="The first deal's seed, the review's.")
        parser.add_argument(
            "--positions", type=int, default=None, help="Positions a decision (default: review.POSITIONS)."
        )
        parser.add_argument(
            "--budget", type=float, default=HARD_BUDGET, help="Hard's seconds a decision in the bench's play."
        )
        parser.add_argument(
            "--agreement-matches",
            type=int,
            default=20,
            help="Matches a level reviewed again with another seed.",
        )
        parser.add_argument(
            "--thresholds",
            nargs="*",
            type=parse_thresholds,
            default=[],
            help="More inaccuracy/mistake/blunder to measure labels and agreement at, e.g. 2/5/10.",
        )
        parser.add_argument("--save", default=None, help="Write every decision's losses to this JSON file.")

    def handle(self, *args, game: str, jobs: int, save: str | None, **options) -> None:
        saved = {}
        for game_name in GAME_NAMES if game == "both" else (game,):
            saved[game_name] = [asdict(r) for r in self.run_game(game_name, jobs=jobs, **options)]
        if save:
            with open(save, "w") as file:
                json.dump(saved, file)

    def run_game(
        self,
        game_name: str,
        *,
        matches: int,
        players: int,
        jobs: int,
        seed: int,
        positions: int | None,
        budget: float,
        agreement_matches: int,
        thresholds: list[tuple[float, float, float]],
        **_: object,
    ) -> list[MatchReview]:
        jobs_args = [
            (
                game_name,
                players,
                level,
                seed + index,
                budget,
                positions,
                (seed, seed + 1) if index < agreement_matches else (seed,),
            )
            for level in LEVELS
            for index in range(matches)
        ]
        started = time.perf_counter()
        reviews: list[MatchReview] = []
        with ProcessPoolExecutor(jobs) if jobs > 1 else _InProcess() as pool:
            for done in pool.map(review_match, *zip(*jobs_args, strict=True)):
                reviews.append(done)
                if len(reviews) % max(1, len(jobs_args) // 10) == 0:
                    progress = f"{game_name}: {len(reviews)}/{len(jobs_args)} matches"
                    print(progress, file=sys.stderr, flush=True)
        self.report(
            game_name,
            reviews,
            players=players,
            matches=matches,
            seed=seed,
            positions=positions or review.POSITIONS[game_name],
            budget=budget,
            thresholds=thresholds,
            elapsed=time.perf_counter() - started,
        )
        return reviews

    def report(
        self,
        game_name: str,
        reviews: list[MatchReview],
        *,
        players: int,
        matches: int,
        seed: int,
        positions: int,
        budget: float,
        thresholds: list[tuple[float, float, float]],
        elapsed: float,
    ) -> None:
        write = self.stdout.write
        limits = review.THRESHOLDS[game_name]
        write(
            f"{game_name}, {players} players, {matches} matches a level (seed {seed}), every seat reviewed, "
            f"{positions} positions a decision; hard plays at {budget} s a decision (the table's: "
            f"{DEFAULT_BUDGET} s)"
        )
        by_level = {level: [r for r in reviews if r.level == level] for level in LEVELS}
        means = {}
        for level, done in by_level.items():
            per_match = [statistics.fmean(r.accuracies) for r in done if r.accuracies]
            means[level] = statistics.fmean(per_match)
            low, high = bootstrap_interval(per_match, seed)
            write(f"{level}: accuracy {means[level]:.1f}% ({low:.1f}–{high:.1f}%)")
        ordered = means["hard"] > means["normal"] > means["easy"]
        write(f"hard > normal > easy: {'yes' if ordered else 'NO'}")

        candidates = [(limits.inaccuracy, limits.mistake, limits.blunder), *thresholds]
        for inaccuracy, mistake, blunder in candidates:
            other = review.Thresholds(inaccuracy, mistake, blunder, limits.scale)
            write(f"labels at {inaccuracy:g}/{mistake:g}/{blunder:g} (share of decisions):")
            for level, done in by_level.items():
                labels = labels_under(other, [loss for r in done for loss in r.losses])
                shares = "  ".join(
                    f"{label or 'good'} {labels.count(label) / len(labels):5.1%}"
                    for label in ("", *review.LABELS)
                )
                write(f"  {level:6}  {shares}  ({len(labels)} decisions)")
            same, count = agreement(reviews, other)
            write(
                f"  two review seeds give the same label to {same:.1%} of {count} decisions "
                f"(goal {AGREEMENT_GOAL:.0%} or more)"
            )

        write("loss quantiles " + "/".join(f"{q * 100:g}" for q in QUANTILES) + ":")
        for level, done in by_level.items():
            losses = [loss for r in done for loss in r.losses]
            write(f"  {level:6}  " + "  ".join(f"{quantile(losses, q):6.2f}" for q in QUANTILES))

        seconds = [s for r in reviews for s in r.seconds]
        per_match = [sum(r.seconds) for r in reviews]
        mean = statistics.fmean(seconds)
        write(
            f"review CPU time per decision: mean {mean:.3f} s, p95 {quantile(seconds, 0.95):.3f} s; "
            f"per match (every seat) mean {statistics.fmean(per_match):.1f} s for "
            f"{len(seconds) / len(reviews):.0f} decisions"
        )
        write(
            f"a 100-decision match: {100 * mean:.1f} s of one core (goal {DECISION_GOAL_SECONDS:g} s or less)"
        )
        write(f"wall time {elapsed:.0f} s")
