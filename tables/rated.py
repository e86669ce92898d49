"""Who is rated: the one decision whether a table's match moves the players' ratings.

A match is rated only when all of these hold, checked in this order (the first that fails is the
reason shown):

- its host (or the pool, for whoever asked for casual) wanted it rated;
- strangers can reach it: a public lobby table or a pool table. Private tables (invitations, "Play
  now" with bots) are casual: a host choosing every opponent could choose throwaway accounts;
- it has a turn clock, so a loser cannot stall it forever by keeping the page open;
- every seat holds a person: a rating measures play against people. At a pool table that bots filled,
  the bots' play decides part of every place (and, four at a table, a bot can be a partner), and two
  accounts of one person joining the pool at a quiet hour would meet there with bots: it is casual;
- its people are all people or all bot accounts: a bot account's rating is on the bots' leaderboard,
  made against other bot accounts, and people's ratings measure play against people, so a match of
  both is casual (a person cannot farm points off their own weak bot account, nor a bot off people);
- every person has an established account (``accounts.selectors.is_established``);
- no two of its people have played ``RATED_PAIR_DAILY`` rated matches together in the last 24 hours.

``casual_reason`` decides it from the table and its people. ``tables.services`` asks it at every seat
change while the table waits and stores the answer on the table (``Table.is_rated``,
``Table.casual_because``), the last time when the match starts: from then on the stored answer is the
match's, and every page and the ratings app read it, so the label a player saw is what happens.
While a table waits, its people are those seated and those a seat is kept for (a rematch); the
waiting room also asks it with the viewer added, to tell them before they sit.
"""

from collections import Counter, defaultdict
from datetime import timedelta
from itertools import combinations

from django.conf import settings
from django.utils import timezone

from accounts.selectors import is_established

from .models import Casual, Seat, Table, TurnClock

PAIR_WINDOW = timedelta(days=1)
"""How far back rated matches of the same two people are counted for ``RATED_PAIR_DAILY``."""


def casual_reason(table: Table, seats: list[Seat], *, joining=None) -> str:
    """Why ``table``'s match is casual (a ``Casual`` value) with ``seats`` as they are and, if given,
    ``joining`` sitting down too; "" when it is rated."""
    if not table.rated_wanted:
        return Casual.ASKED
    if table.is_private:
        return Casual.PRIVATE
    if table.turn_clock == TurnClock.NONE:
        return Casual.NO_CLOCK
    if any(seat.is_bot for seat in seats):
        return Casual.BOTS
    people = [seat.user or seat.reserved_for for seat in seats if seat.user_id or seat.reserved_for_id]
    if joining is not None and all(person.pk != joining.pk for person in people):
        people.append(joining)
    if len({person.is_bot_account for person in people}) > 1:
        return Casual.BOT_ACCOUNTS
    if not all(is_established(person) for person in people):
        return Casual.NEWCOMER
    if pairs_over_daily(table, [person.pk for person in people]):
        return Casual.PAIR_DAILY
    return ""


def pairs_over_daily(table: Table, user_ids: list[int]) -> bool:
    """Whether two of ``user_ids`` have started ``RATED_PAIR_DAILY`` rated matches together (at tables
    other than ``table``) in the last ``PAIR_WINDOW``."""
    if len(user_ids) < 2:
        return False
    rows = (
        Seat.objects.filter(
            user_id__in=user_ids,
            table__is_rated=True,
            table__status__in=(Table.Status.PLAYING, Table.Status.FINISHED),
            table__started_at__gte=timezone.now() - PAIR_WINDOW,
        )
        .exclude(table_id=table.pk)
        .values_list("table_id", "user_id")
    )
    together: dict[int, set[int]] = defaultdict(set)
    for table_id, user_id in rows:
        together[table_id].add(user_id)
    pairs = Counter(pair for people in together.values() for pair in combinations(sorted(people), 2))
    return any(count >= settings.RATED_PAIR_DAILY for count in pairs.values())
