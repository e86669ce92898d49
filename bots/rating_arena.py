"""The rating benchmark's working parts, without Django (``manage.py ratingbench`` drives them).

Do the ratings tell the truth? Pseudo-people, each a bot level, play whole matches on the engine; the
ledger rates them in match order, as the site would. If the model works, the levels' mean ratings come
out in order with gaps that hold from seed to seed, and the ratings before a match pick its winner more
often than chance. And what does an update cost: ``ledger.apply`` timed per table size.
"""

import random
import statistics
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields

from gameplay.engine import get_game
from ratings import ledger, model
from ratings.standing import Standing, standing

from .arena import play_through
from .policies import LEVELS

SIZES = (2, 3, 4)
HELD_OUT = 0.2
"""The share of matches, the last ones, whose winner the ratings before them predict."""


@dataclass(frozen=True)
class Job:
    """One match to play: who sits where (a pseudo-person per seat) and at which bot level."""

    game: str
    players: int
    people: tuple[int, ...]
    levels: tuple[str, ...]
    seed: int
    budget: float


def pool(per_level: int) -> list[str]:
    """Each pseudo-person's level, the person being the index: ``per_level`` of each level."""
    return [level for level in LEVELS for _ in range(per_level)]


def schedule(game: str, matches: int, levels: Sequence[str], seed: int, budget: float) -> list[Job]:
    """The run's matches in order: table sizes in turn (2, 3, 4 players), people drawn at random."""
    rng = random.Random(f"ratingbench:{game}:{seed}")
    jobs = []
    for index in range(matches):
        players = SIZES[index % len(SIZES)]
        people = tuple(rng.sample(range(len(levels)), players))
        levels_seated = tuple(levels[person] for person in people)
        jobs.append(Job(game, players, people, levels_seated, rng.randrange(2**31), budget))
    return jobs


def play(job: Job) -> dict:
    """Play the match on the engine, each seat choosing at its level, dealing between rounds as the
    table does; the result as a finished match stores it (nobody left)."""
    game = get_game(job.game)
    state = game.new_match(game.options_from_json({"players": job.players}), job.seed)
    rngs = [random.Random(f"{job.seed}:{seat}") for seat in range(job.players)]
    play_through(game, state, list(job.levels), rngs, budget=job.budget)
    public = game.view(state, None)
    games_won = public.get("games_won")
    return {
        "totals": list(public["totals"]),
        "games_won": None if games_won is None else list(games_won),
        "winners": list(public["winners"]),
        "left": [],
    }


def options_json(game: str, players: int) -> dict:
    """The table's default options for ``players``, as a match stores them."""
    engine = get_game(game)
    return engine.options_to_json(engine.options_from_json({"players": players}))


@dataclass
class Tally:
    """Held-out predictions at one table size."""

    decided: int = 0
    right: int = 0
    chance: float = 0.0
    """The sum over the decided matches of 1 / sides: what picking a side at random gets right."""
    confidence: float = 0.0
    """The sum of the picked side's predicted chance: equals ``right`` if the model is calibrated."""
    undecided: int = 0


@dataclass
class Replay:
    """The ledger after every match, each person's wins and fair share of wins, the predictions."""

    entries: dict[int, ledger.Entry] = field(default_factory=lambda: defaultdict(ledger.Entry))
    wins: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    fair: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    held_out: dict[int, Tally] = field(default_factory=lambda: defaultdict(Tally))


def rate_in_order(jobs: Sequence[Job], results: Sequence[dict]) -> Replay:
    """Rate the matches in order, one ledger; before each of the last ``HELD_OUT`` share, predict its
    winning side (the highest ``win_chances``) from the ratings as they stand."""
    replay = Replay()
    first_held_out = len(jobs) - round(len(jobs) * HELD_OUT)
    for index, (job, result) in enumerate(zip(jobs, results, strict=True)):
        rated = standing(job.game, options_json(job.game, job.players), result)
        people = dict(enumerate(job.people))
        winning = _winning_side(rated, result["winners"])
        for side_index, side in enumerate(rated.sides if winning is not None else ()):
            for seat in side:
                replay.fair[people[seat]] += 1 / len(rated.sides)
                replay.wins[people[seat]] += side_index == winning
        if index >= first_held_out:
            _predict(replay, rated, people, winning, replay.held_out[job.players])
        ledger.apply(replay.entries, people, rated, at=None)
    return replay


def _winning_side(rated: Standing, winners: list[int]) -> int | None:
    """The index of the side the winning seats belong to; None when the match has no winner."""
    return next((index for index, side in enumerate(rated.sides) if winners and winners[0] in side), None)


def _predict(
    replay: Replay, rated: Standing, people: dict[int, int], winning: int | None, tally: Tally
) -> None:
    if winning is None:
        tally.undecided += 1
        return
    sides = [
        [model.Skill(replay.entries[people[s]].mu, replay.entries[people[s]].sigma) for s in side]
        for side in rated.sides
    ]
    chances = model.win_chances(sides)
    picked = max(range(len(chances)), key=chances.__getitem__)
    tally.decided += 1
    tally.right += picked == winning
    tally.chance += 1 / len(sides)
    tally.confidence += chances[picked]


@dataclass(frozen=True)
class LevelRow:
    level: str
    mean: float
    lowest: int
    highest: int
    matches: float
    win_share: float
    """Wins over the fair share of wins (1 / sides per decided match): above 1, better than the table."""


def levels_table(replay: Replay, levels: Sequence[str]) -> list[LevelRow]:
    rows = []
    for level in LEVELS:
        people = [person for person, own in enumerate(levels) if own == level]
        shown = [replay.entries[person].shown for person in people]
        rows.append(
            LevelRow(
                level=level,
                mean=statistics.fmean(model.shown_exact(replay.entries[p].mu) for p in people),
                lowest=min(shown),
                highest=max(shown),
                matches=statistics.fmean(replay.entries[p].matches for p in people),
                win_share=sum(replay.wins[p] for p in people) / sum(replay.fair[p] for p in people),
            )
        )
    return rows


def gaps(rows: Sequence[LevelRow]) -> tuple[float, float]:
    """Hard − normal and normal − easy, in shown points."""
    mean = {row.level: row.mean for row in rows}
    return mean["hard"] - mean["normal"], mean["normal"] - mean["easy"]


def _held_out_line(label: str, tally: Tally) -> str:
    if not tally.decided:
        return f"{label}: no decided match"
    return (
        f"{label}: {tally.right / tally.decided:.1%} right of {tally.decided} decided "
        f"(chance {tally.chance / tally.decided:.1%}, mean predicted chance of the pick "
        f"{tally.confidence / tally.decided:.1%}; {tally.undecided} with no winner skipped)"
    )


def run_lines(
    game: str, seed: int, jobs: Sequence[Job], levels: Sequence[str], replay: Replay, seconds: float
) -> list[str]:
    """The printed account of one game's run at one seed."""
    sizes = ", ".join(f"{sum(job.players == size for job in jobs)} at {size}" for size in SIZES)
    lines = [
        f"{game}, seed {seed}: {len(jobs)} matches ({sizes} players), hard budget {jobs[0].budget} s, "
        f"played in {seconds:.0f} s",
        "  level    mean rating  lowest  highest  matches each  wins / fair share",
    ]
    rows = levels_table(replay, levels)
    lines += [
        f"  {row.level:7}  {row.mean:11.0f}  {row.lowest:6}  {row.highest:7}  {row.matches:12.0f}"
        f"  {row.win_share:17.2f}"
        for row in rows
    ]
    hard_normal, normal_easy = gaps(rows)
    lines.append(f"  gaps: hard - normal {hard_normal:+.0f}, normal - easy {normal_easy:+.0f}")
    total = Tally(*(sum(getattr(tally, f.name) for tally in replay.held_out.values()) for f in fields(Tally)))
    lines.append("  " + _held_out_line(f"held out (last {HELD_OUT:.0%})", total))
    lines += ["    " + _held_out_line(f"{size} players", replay.held_out[size]) for size in SIZES]
    return lines


def seeds_lines(game: str, by_seed: dict[int, tuple[float, float]]) -> list[str]:
    """The gaps seed by seed, their mean and spread: how stable they are."""
    lines = [f"{game}: gaps by seed"]
    lines += [
        f"  seed {seed}: hard - normal {hn:+.0f}, normal - easy {ne:+.0f}"
        for seed, (hn, ne) in by_seed.items()
    ]
    if len(by_seed) > 1:
        for label, values in (
            ("hard - normal", [hn for hn, _ne in by_seed.values()]),
            ("normal - easy", [ne for _hn, ne in by_seed.values()]),
        ):
            lines.append(
                f"  {label}: mean {statistics.fmean(values):+.0f}, standard deviation "
                f"{statistics.stdev(values):.0f}, range {min(values):+.0f} to {max(values):+.0f}"
            )
    return lines


# --- What an update costs ------------------------------------------------------------------------

COST_CASES = (("americana", 2), ("americana", 3), ("americana", 4), ("classic", 4))
"""Every shape of match the ledger rates: two, three or four sides alone, and two teams of two."""


def update_cost(updates: int, seed: int) -> list[tuple[str, int, float]]:
    """Microseconds per ``ledger.apply``, per shape of match: (game, players, µs). People with spread-out
    ratings, random results (equal places too), the standings built beforehand (not timed)."""
    rng = random.Random(f"ratingbench:cost:{seed}")
    timings = []
    for game, players in COST_CASES:
        entries = {
            person: ledger.Entry(mu=rng.gauss(model.MU, 4), sigma=rng.uniform(1, model.SIGMA))
            for person in range(64)
        }
        cases = []
        for _ in range(256):
            totals = [rng.randrange(6) for _ in range(2 if game == "classic" and players == 4 else players)]
            result = {"totals": totals, "games_won": totals, "winners": [], "left": []}
            seats = dict(enumerate(rng.sample(range(len(entries)), players)))
            cases.append((seats, standing(game, options_json(game, players), result)))
        started = time.perf_counter()
        for index in range(updates):
            seats, rated = cases[index % len(cases)]
            ledger.apply(entries, seats, rated, at=None)
        timings.append((game, players, (time.perf_counter() - started) / updates * 1e6))
    return timings


def cost_lines(timings: Iterable[tuple[str, int, float]], updates: int) -> list[str]:
    lines = [f"time per rating update (ledger.apply, {updates} updates each)"]
    for game, players, micros in timings:
        shape = "two teams of two" if game == "classic" and players == 4 else f"{players} sides of one"
        lines.append(f"  {players} players ({game}, {shape}): {micros:.0f} µs per update")
    return lines
