"""Who sits with whom in an arena: those waiting, grouped into full tables by their standing.

Two seats: people sorted by rank, and a minimum-cost matching solved exactly by dynamic programming
on a band (lichess's arena pairs by rank distance plus a penalty for last opponents, over a blossom
matching; a blossom on a complete graph of a thousand people takes seconds in CPython, whereas the
band is linear in the crowd and optimal among pairings of people at most ``PAIR_BAND`` places apart,
which is where a pairing by rank looks anyway).

Three and four seats: a grouping into windows of the rank order is the least spread in rank there
is; what it gets wrong (the same people as last time, or two people with a block between them) is
mended by swapping one person at a time with the nearest table where the swap lowers the clashes
(``remove_clashes``). A band DP over groups would need C(band, size - 1) choices per state, ten to
twenty times the work, for a gain only on crowds where repeats are dense.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

PAIR_BAND = 5
"""How many places down the rank order a person may be paired at two seats: the DP's state is a
bitmask of that many places, so its work grows as 2 ** PAIR_BAND."""

NEAR_TABLES = 3
"""How many tables away a swap may look to avoid a repeat; blocks are looked for everywhere."""

REPEAT = 1
BLOCKED = 1000
"""Clash weights: one block outweighs every repeat two tables of four can hold."""

TEAM_SIZE = 4


@dataclass(frozen=True)
class Waiting:
    user: int
    rank: int
    """0-based position in the tournament's standing now."""
    waited: float
    """Seconds since they started waiting."""
    last_opponents: frozenset[int]
    """Who was at their previous tournament table (empty if none)."""


def arena_tables(
    waiting: list[Waiting],
    size: int,
    *,
    teams: bool = False,
    apart: frozenset[frozenset[int]] = frozenset(),
) -> list[list[int]]:
    """Full tables of ``size`` user ids, each list in seat order. Grouped with those nearest in rank,
    avoiding the same opponents twice in a row where the crowd allows; two people in ``apart`` (a
    block between them) never at one table. When the count is not a multiple of ``size`` those who
    waited least are the ones left for the next pairing. With ``teams`` (size 4 only) the seat order
    balances the teams: partners are seats 0 and 2 and 1 and 3; best+worst rank against the middle two.
    Ties are broken by user id, so the same crowd is always seated the same way."""
    check_size(size, teams=teams)
    seated = sorted(_longest_waiting(waiting, size), key=lambda person: (person.rank, person.user))
    tables = _pairs_in_band(seated, apart) if size == 2 else _groups_by_rank(seated, size, apart)
    rank = {person.user: person.rank for person in seated}
    return [seat_order(table, rank.__getitem__, teams=teams) for table in tables]


def check_size(size: int, *, teams: bool) -> None:
    """Tables seat two, three or four; teams are two pairs, so only at four."""
    if size not in (2, 3, 4):
        raise ValueError(f"a table seats 2, 3 or 4, not {size}")
    if teams and size != TEAM_SIZE:
        raise ValueError("teams play at four seats only")


def seat_order(table: Iterable[int], position: Callable[[int], int], *, teams: bool) -> list[int]:
    """Seats by standing (``position``: lower is better, ties by user id). For teams, the best and
    the worst are partners (seats 0 and 2) against the middle two (1 and 3), so both teams are even."""
    ordered = sorted(table, key=lambda user: (position(user), user))
    if not teams:
        return ordered
    best, second, third, worst = ordered
    return [best, second, worst, third]


def _longest_waiting(waiting: list[Waiting], size: int) -> list[Waiting]:
    """Everyone but the few who waited least, so the count fills whole tables."""
    by_wait = sorted(waiting, key=lambda person: (-person.waited, person.user))
    return by_wait[: len(by_wait) - len(by_wait) % size]


def _met_last_time(a: Waiting, b: Waiting) -> bool:
    return b.user in a.last_opponents or a.user in b.last_opponents


def _pairs_in_band(ordered: list[Waiting], apart: frozenset[frozenset[int]]) -> list[list[int]]:
    """The least-cost pairing where partners are at most PAIR_BAND places apart in rank order.

    Cost, in order of importance: people left unpaired (only when blocks leave no partner in the
    band), repeats of last opponents, then the sum of rank gaps. The weights make that order strict:
    a repeat outweighs any sum of gaps, one person left out outweighs any number of repeats.
    State after position i: the bitmask of positions i+1.. already taken by someone before them."""
    count = len(ordered)
    if count < 2:
        return []
    span = ordered[-1].rank - ordered[0].rank + 1
    repeat_cost = span * count + 1
    alone_cost = repeat_cost * (count + 1)
    partners: list[list[tuple[int, int]]] = []
    for i, person in enumerate(ordered):
        reachable = []
        for offset in range(1, min(PAIR_BAND, count - 1 - i) + 1):
            other = ordered[i + offset]
            if frozenset((person.user, other.user)) in apart:
                continue
            cost = other.rank - person.rank + (repeat_cost if _met_last_time(person, other) else 0)
            reachable.append((offset, cost))
        partners.append(reachable)

    least: dict[int, int] = {0: 0}
    came_from: list[dict[int, tuple[int, int]]] = []
    for i in range(count):
        following: dict[int, int] = {}
        step: dict[int, tuple[int, int]] = {}
        for taken, cost in least.items():
            moves = [(cost, 0)] if taken & 1 else [(cost + alone_cost, 0)]
            if not taken & 1:
                moves += [
                    (cost + pair_cost, offset) for offset, pair_cost in partners[i] if not taken >> offset & 1
                ]
            for total, offset in moves:
                after = (taken | 1 << offset) >> 1
                if after not in following or total < following[after]:
                    following[after] = total
                    step[after] = (taken, offset)
        came_from.append(step)
        least = following

    pairs = []
    taken = 0
    for i in range(count - 1, -1, -1):
        taken, offset = came_from[i][taken]
        if offset:
            pairs.append([ordered[i].user, ordered[i + offset].user])
    pairs.reverse()
    return pairs


def _groups_by_rank(ordered: list[Waiting], size: int, apart: frozenset[frozenset[int]]) -> list[list[int]]:
    """Windows of the rank order, mended by swaps; a table a block still spoils is not seated."""
    by_user = {person.user: person for person in ordered}
    met = _both_ways({person.user: person.last_opponents for person in ordered})
    blocked = _both_ways(dict.fromkeys(by_user, ()) | _blocks_among(by_user, apart))

    def clash(a: int, b: int) -> int:
        if b in blocked[a]:
            return BLOCKED
        return REPEAT if b in met[a] else 0

    def spread(table: Sequence[int]) -> int:
        ranks = [by_user[user].rank for user in table]
        return max(ranks) - min(ranks)

    users = [person.user for person in ordered]
    tables = [users[start : start + size] for start in range(0, len(users), size)]
    everywhere = len(tables)
    remove_clashes(
        tables,
        clash=clash,
        spread=spread,
        reach=lambda weight: everywhere if weight >= BLOCKED else NEAR_TABLES,
    )
    return [table for table in tables if _clashes(table, clash) < BLOCKED]


def _both_ways(relation: dict[int, Iterable[int]]) -> dict[int, set[int]]:
    """Who is related to whom, whichever of the two listed the other."""
    symmetric: dict[int, set[int]] = {user: set(others) for user, others in relation.items()}
    for user, others in relation.items():
        for other in others:
            symmetric.setdefault(other, set()).add(user)
    return symmetric


def _blocks_among(present: dict[int, Waiting], apart: frozenset[frozenset[int]]) -> dict[int, list[int]]:
    """The blocks between people who are both here, as user -> the others."""
    blocks: dict[int, list[int]] = {}
    for pair in apart:
        first, second = sorted(pair)
        if first in present and second in present:
            blocks.setdefault(first, []).append(second)
    return blocks


def _clashes(table: Sequence[int], clash: Callable[[int, int], int]) -> int:
    return sum(clash(a, b) for a, b in combinations(table, 2))


def remove_clashes(
    tables: list[list[int]],
    *,
    clash: Callable[[int, int], int],
    spread: Callable[[Sequence[int]], int],
    reach: Callable[[int], int],
) -> None:
    """Mend ``tables`` in place by swapping one person of a clashing table with one of another.

    ``clash(a, b)``: how bad it is that a and b share a table (0 fine). ``spread(table)``: how far
    apart its members stand. ``reach(weight)``: how many tables away to look for a table weighing
    that much in clashes. The swap taken is the one at the nearest table that lowers the two tables'
    clashes, most first, then the one that widens their spread least. Every swap lowers the total,
    so this ends; a clash no swap can lower stays."""
    weights = [_clashes(table, clash) for table in tables]
    pending = [index for index, weight in enumerate(weights) if weight]
    while pending:
        index = pending.pop(0)
        while weights[index]:
            swap = _best_swap(tables, weights, index, clash, spread, reach(weights[index]))
            if swap is None:
                break
            other, left, right = swap
            tables[index][left], tables[other][right] = tables[other][right], tables[index][left]
            weights[index] = _clashes(tables[index], clash)
            weights[other] = _clashes(tables[other], clash)
            if weights[other] and other not in pending:
                pending.append(other)


def _best_swap(
    tables: list[list[int]],
    weights: list[int],
    index: int,
    clash: Callable[[int, int], int],
    spread: Callable[[Sequence[int]], int],
    reach: int,
) -> tuple[int, int, int] | None:
    """(other table, seat here, seat there) of the best swap at the nearest distance that has one."""
    table = tables[index]
    for distance in range(1, reach + 1):
        best: tuple[tuple[int, int, int, int], tuple[int, int, int]] | None = None
        for other in (index + distance, index - distance):
            if not 0 <= other < len(tables):
                continue
            there = tables[other]
            before_spread = spread(table) + spread(there)
            for left, leaving in enumerate(table):
                rest_here = [user for user in table if user != leaving]
                kept_here = weights[index] - sum(clash(leaving, user) for user in rest_here)
                for right, coming in enumerate(there):
                    rest_there = [user for user in there if user != coming]
                    here_after = kept_here + sum(clash(coming, user) for user in rest_here)
                    there_after = (
                        weights[other]
                        - sum(clash(coming, user) for user in rest_there)
                        + sum(clash(leaving, user) for user in rest_there)
                    )
                    change = here_after + there_after - weights[index] - weights[other]
                    if change >= 0:
                        continue
                    widening = spread([*rest_here, coming]) + spread([*rest_there, leaving]) - before_spread
                    key = (change, widening, leaving, coming)
                    if best is None or key < best[0]:
                        best = (key, (other, left, right))
        if best is not None:
            return best[1]
    return None
