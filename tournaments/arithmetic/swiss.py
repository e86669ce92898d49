"""One round of a Swiss event: tables by score group, nobody at a table with someone twice.

Two seats: a maximum-weight matching (Edmonds' blossom, ``networkx.max_weight_matching``) over every
pair, since a Swiss event is small enough for it and only a global matching can promise no rematch
whenever one is avoidable. Inside a score group the nearest in order meet (1 v 2, 3 v 4, the Monrad
way), as in the arena, rather than the Dutch top half against bottom half.

Three and four seats: tables filled from the top of the standing (leaders together), each the
highest still unseated with the next ones down they have not met, backtracking when the rest can
no longer be seated without a repeat (the Dutch system's search, over groups). Single swaps alone
(below) stall in about a third of tight events, e.g. 12 players at three seats over 4 rounds. When
no repeat-free round turns up within ``SEARCH_BUDGET`` groups tried (there may be none), consecutive
tables of the standing are mended instead: a repeated table-mate is swapped with someone at the
nearest table where the swap lowers the repeats, the one that crosses the fewest points and places
first (``arena.remove_clashes``).
"""

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import networkx

from .arena import check_size, remove_clashes, seat_order
from .points import WIN_POINTS

SEARCH_BUDGET = 20_000
"""Groups the backtracking may try before it settles for the fewest repeats swaps can reach."""

BYE_POINTS = WIN_POINTS
"""A bye scores as a win (and is not a win for the streak; Swiss has no streak)."""


@dataclass(frozen=True)
class SwissPlayer:
    user: int
    points: int
    rating: int
    opponents: frozenset[int]
    """Everyone who was ever at a table with them in this event, partners included: nobody shares
    a table twice."""
    byes: int
    """Byes had so far."""


@dataclass(frozen=True)
class SwissRound:
    tables: list[list[int]]
    """User ids per table, seat order (teams: balanced as in the arena)."""
    byes: list[int]
    """Who sits out this round and scores BYE_POINTS."""


def swiss_round(players: list[SwissPlayer], size: int, *, teams: bool = False) -> SwissRound:
    """The next round's tables and byes. The standing orders by points, then rating, then user id;
    ``len(players) % size`` byes go to the lowest ranked of those who had the fewest byes."""
    check_size(size, teams=teams)
    ordered = sorted(players, key=lambda player: (-player.points, -player.rating, player.user))
    resting = set(_byes(ordered, len(ordered) % size))
    playing = [player for player in ordered if player.user not in resting]
    tables = _pairs(playing) if size == 2 else _groups(playing, size)
    position = {player.user: index for index, player in enumerate(ordered)}
    seated = [seat_order(table, position.__getitem__, teams=teams) for table in tables]
    seated.sort(key=lambda table: min(position[user] for user in table))
    return SwissRound(tables=seated, byes=[player.user for player in ordered if player.user in resting])


def _byes(ordered: list[SwissPlayer], count: int) -> list[int]:
    lowest_first = sorted(range(len(ordered)), key=lambda index: (ordered[index].byes, -index))
    return [ordered[index].user for index in lowest_first[:count]]


def _met(a: SwissPlayer, b: SwissPlayer) -> bool:
    return b.user in a.opponents or a.user in b.opponents


def _pairs(ordered: list[SwissPlayer]) -> list[list[int]]:
    """The matching that has, in this order: the fewest rematches, the fewest points between
    opponents, the least distance in the standing. Each weight outweighs every sum of the next."""
    count = len(ordered)
    if count < 2:
        return []
    widest_gap = ordered[0].points - ordered[-1].points
    points_weight = count * count + 1
    rematch_weight = points_weight * (widest_gap * count + 1)
    ceiling = 2 * rematch_weight
    graph = networkx.Graph()
    graph.add_nodes_from(range(count))
    for i, first in enumerate(ordered):
        for j in range(i + 1, count):
            second = ordered[j]
            penalty = (
                (rematch_weight if _met(first, second) else 0)
                + (first.points - second.points) * points_weight
                + (j - i)
            )
            graph.add_edge(i, j, weight=ceiling - penalty)
    matching = networkx.max_weight_matching(graph, maxcardinality=True)
    return [[ordered[i].user, ordered[j].user] for i, j in sorted(tuple(sorted(pair)) for pair in matching)]


def _groups(ordered: list[SwissPlayer], size: int) -> list[list[int]]:
    """Repeat-free tables from the top down if the search finds them, else consecutive tables of
    the standing mended by swaps."""
    by_user = {player.user: player for player in ordered}
    position = {player.user: index for index, player in enumerate(ordered)}
    count = len(ordered)

    def clash(a: int, b: int) -> int:
        return 1 if _met(by_user[a], by_user[b]) else 0

    def spread(table: list[int]) -> int:
        points = [by_user[user].points for user in table]
        places = [position[user] for user in table]
        return (max(points) - min(points)) * count + max(places) - min(places)

    users = [player.user for player in ordered]
    search = _LeadersFirst(size, clash)
    found = search.seat(users)
    if found is not None:
        return found
    tables = [users[start : start + size] for start in range(0, count, size)]
    everywhere = len(tables)
    remove_clashes(tables, clash=clash, spread=spread, reach=lambda weight: everywhere)
    return tables


class _LeadersFirst:
    """Depth-first: the highest unseated and the first table-mates down the standing they have
    not met; the first round found is the one nearest the standing's order. Gives up (None) after
    ``SEARCH_BUDGET`` groups."""

    def __init__(self, size: int, clash: Callable[[int, int], int]) -> None:
        self.size = size
        self.clash = clash
        self.budget = SEARCH_BUDGET

    def seat(self, users: list[int]) -> list[list[int]] | None:
        if not users:
            return []
        head, rest = users[0], users[1:]
        free = [user for user in rest if not self.clash(head, user)]
        for mates in combinations(free, self.size - 1):
            if any(self.clash(a, b) for a, b in combinations(mates, 2)):
                continue
            self.budget -= 1
            if self.budget < 0:
                return None
            chosen = set(mates)
            tables = self.seat([user for user in rest if user not in chosen])
            if tables is not None:
                return [[head, *mates], *tables]
            if self.budget < 0:
                return None
        return None
