"""The arithmetic of rated play over a person's rating, the same for the live update and for
``rebuild_ratings``: apply a match, reverse a voided one. Plain values in, plain values out."""

from dataclasses import dataclass
from datetime import datetime

from . import model
from .standing import Standing


@dataclass
class Entry:
    """One person's rating in one game, as the ledger works on it."""

    mu: float = model.MU
    sigma: float = model.SIGMA
    matches: int = 0
    peak: int = model.SHOWN_AT_START
    last_played_at: datetime | None = None

    @property
    def shown(self) -> int:
        return model.shown(self.mu)

    @property
    def established(self) -> bool:
        return not model.provisional(matches=self.matches, sigma=self.sigma)


@dataclass(frozen=True)
class Change:
    user_id: int
    seat: int
    place: int
    left: bool
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    established: bool

    @property
    def before(self) -> int:
        return model.shown(self.mu_before)

    @property
    def after(self) -> int:
        return model.shown(self.mu_after)

    @property
    def change(self) -> int:
        return model.change_shown(self.mu_before, self.mu_after)


def apply(
    entries: dict[int, Entry], people: dict[int, int], standing: Standing, *, at: datetime | None
) -> list[Change]:
    """Rate one match: ``people`` maps each seat to its person, ``entries`` each person to their rating
    (updated in place). The changes, seat by seat."""
    sides = [
        [model.Skill(entries[people[seat]].mu, entries[people[seat]].sigma) for seat in side]
        for side in standing.sides
    ]
    rated = model.rate(sides, standing.places)
    changes = []
    for side, new_side, place, left in zip(
        standing.sides, rated, standing.places, standing.left, strict=True
    ):
        for seat, new in zip(side, new_side, strict=True):
            entry = entries[people[seat]]
            mu_before, sigma_before = entry.mu, entry.sigma
            entry.mu, entry.sigma = new.mu, new.sigma
            entry.matches += 1
            entry.peak = max(entry.peak, entry.shown) if entry.matches > 1 else entry.shown
            if at is not None and (entry.last_played_at is None or at > entry.last_played_at):
                entry.last_played_at = at
            changes.append(
                Change(
                    user_id=people[seat],
                    seat=seat,
                    place=place,
                    left=left,
                    mu_before=mu_before,
                    sigma_before=sigma_before,
                    mu_after=new.mu,
                    sigma_after=new.sigma,
                    established=entry.established,
                )
            )
    return sorted(changes, key=lambda change: change.seat)


def reverse(entry: Entry, change: Change, standing_afters: list[int]) -> None:
    """Undo a voided match's change on the person's rating as it is now: μ moves back by what the match
    moved it, σ grows back by what it shrank (never past a newcomer's), one match fewer.
    ``standing_afters``: the ratings shown after each of the person's changes that still stand; the
    peak is the highest of them and the rating now."""
    entry.mu -= change.mu_after - change.mu_before
    entry.sigma = min(model.SIGMA, entry.sigma + (change.sigma_before - change.sigma_after))
    entry.matches = max(0, entry.matches - 1)
    entry.peak = max([entry.shown, *standing_afters])
