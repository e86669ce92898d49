"""Who sits with whom: the pool's grouping, as plain functions of who is waiting (no database).

Closest ratings first: among every group the pool could make, the one with the smallest spread of
ratings is made first, then the next. A group is acceptable when its spread fits the window of each
of its members, and a member's window widens with their wait (as lichess's quick pairing does), so a
person far from everyone else still finds a table after a while. Two people of whom one blocked the
other are never grouped.
"""

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Waiting:
    entry: int
    user: int
    rating: int
    waited: float
    """Seconds since they joined."""
    fill_with_bots: bool = False


@dataclass(frozen=True)
class Window:
    start: float
    """The rating points either side a person accepts at once."""
    per_second: float
    """How much wider it grows each second of the wait."""

    def of(self, person: Waiting) -> float:
        return self.start + self.per_second * person.waited


def _apart(group: Iterable[Waiting], person: Waiting, blocked: set[frozenset[int]]) -> bool:
    return all(frozenset((member.user, person.user)) not in blocked for member in group)


def _closest_group(
    by_rating: list[Waiting], start: int, size: int, blocked: set[frozenset[int]]
) -> list[Waiting] | None:
    """From ``by_rating[start]`` upwards, the nearest ``size`` people none of whom blocked another."""
    group = [by_rating[start]]
    for person in by_rating[start + 1 :]:
        if len(group) == size:
            break
        if _apart(group, person, blocked):
            group.append(person)
    return group if len(group) == size else None


def groups(
    waiting: list[Waiting], size: int, window: Window, blocked: set[frozenset[int]] = frozenset()
) -> list[list[Waiting]]:
    """Full tables of ``size`` people: the smallest spread of ratings first, each group's spread
    within every member's window. Each person is in at most one group."""
    left = sorted(waiting, key=lambda person: (person.rating, -person.waited, person.entry))
    made = []
    while len(left) >= size:
        best: tuple[tuple[int, float], list[Waiting]] | None = None
        for start in range(len(left) - size + 1):
            group = _closest_group(left, start, size, blocked)
            if group is None:
                continue
            spread = group[-1].rating - group[0].rating
            if spread > min(window.of(member) for member in group):
                continue
            rank = (spread, -max(member.waited for member in group))
            if best is None or rank < best[0]:
                best = (rank, group)
        if best is None:
            break
        made.append(best[1])
        chosen = {member.entry for member in best[1]}
        left = [person for person in left if person.entry not in chosen]
    return made


def bot_fills(
    waiting: list[Waiting], size: int, after: float, blocked: set[frozenset[int]] = frozenset()
) -> list[list[Waiting]]:
    """Tables short of people that bots complete: for whoever has waited ``after`` seconds with
    "fill with bots" on, the longest waiting first, with as many others who also accept bots as the
    table holds (the nearest in rating, whatever their windows: a person beats a bot); a bot takes
    every seat left."""
    willing = [person for person in waiting if person.fill_with_bots]
    made = []
    for person in sorted(willing, key=lambda person: -person.waited):
        if person.waited < after or any(person in group for group in made):
            continue
        taken = {member.entry for group in made for member in group}
        others = sorted(
            (other for other in willing if other.entry not in taken and other.entry != person.entry),
            key=lambda other: (abs(other.rating - person.rating), -other.waited),
        )
        group = [person]
        for other in others:
            if len(group) == size:
                break
            if _apart(group, other, blocked):
                group.append(other)
        made.append(group)
    return made
