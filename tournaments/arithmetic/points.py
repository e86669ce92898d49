"""What a match is worth in a tournament: points by place, and the streak that doubles wins."""

from dataclasses import dataclass

WIN_POINTS = 2
PLACE_POINTS: dict[int, tuple[int, ...]] = {2: (2, 0), 3: (2, 1, 0), 4: (2, 1, 1, 0)}
"""Points by place, by the number of SIDES at the table (classic 2-v-2 has two sides). A win is worth
the same whatever the size, and a table hands out on average one point per side."""

FIRE_STREAK = 2
"""Wins in a row after which the next win counts double."""


def place_points(places: list[int]) -> list[int]:
    """Each side's points from its place (1 the best; equal results share a place, e.g. [1, 1] or
    [1, 2, 2]). Sides sharing places share those places' points: the average, rounded half up
    (two sides level at two seats: 1 each).

    A side's slot in the table is the number of sides placed strictly better, so both the
    competition numbering ([1, 1, 3]) and the dense one ([1, 1, 2]) read the same."""
    table = PLACE_POINTS[len(places)]
    points = []
    for place in places:
        first_slot = sum(other < place for other in places)
        level = places.count(place)
        shared = sum(table[first_slot : first_slot + level])
        points.append((2 * shared + level) // (2 * level))
    return points


def won(places: list[int], side: int) -> bool:
    """Whether ``side`` won: first place, alone."""
    return places[side] == 1 and places.count(1) == 1


@dataclass(frozen=True)
class Scored:
    points: int
    """What the match adds to the person's tournament points."""
    streak: int
    """Wins in a row after this match."""
    doubled: bool
    """The win counted double ("on fire")."""


def score(base: int, *, won: bool, streak: int) -> Scored:
    """After two wins in a row, wins count double until a match is not won. ``streak``: the wins
    in a row before this match. Only wins double; anything but a win ends the streak."""
    if not won:
        return Scored(points=base, streak=0, doubled=False)
    doubled = on_fire(streak)
    return Scored(points=base * 2 if doubled else base, streak=streak + 1, doubled=doubled)


def on_fire(streak: int) -> bool:
    """Whether the next win counts double: it rewards playing on, and well, in an arena."""
    return streak >= FIRE_STREAK
