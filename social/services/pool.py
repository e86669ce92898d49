"""The pairing pool: a person joins a pool (a game, how many play, how long, rated or casual), the
pairing makes tables of those waiting (closest ratings first, bots completing a table for those who
waited long enough), and forgets who stopped looking.

Lock order: a joining person's own row (for no key update), then ``PoolEntry`` rows, then
everything of gameplay's (Table → Match → Seat): pairing claims entries, then has gameplay make and
start the table, in one transaction, so a person is seated by the pool once or not at all.
"""

import random
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import limits
from accounts.selectors import is_established
from gameplay import services as gameplay_services
from ratings.selectors import shown_ratings
from tables.models import BotLevel, Game, Seat, Table
from tables.services import TableError

from .. import events, matching, signals
from ..models import Block, PoolEntry
from .shared import SocialError

POOL_PLAYERS = {Game.AMERICANA: (2, 3, 4), Game.CLASSIC: (2, 3, 4)}
POOL_LENGTHS = {
    Game.AMERICANA: ("target", (101, 301, 501)),
    Game.CLASSIC: ("match", ("points8", "points21", "games1", "games2", "games3")),
}
"""The options a person chooses in the pool (the rest are the game's defaults): the players, and the
target (Americana) or the match's length (classic)."""


def pool_options(*, game: str, players: int, length) -> dict:
    """The table's options for a pool of ``game``, checked by the game's rules."""
    if game not in POOL_PLAYERS or players not in POOL_PLAYERS[game]:
        raise SocialError(_("Choose a game and how many play."))
    name, lengths = POOL_LENGTHS[game]
    if length not in lengths:
        raise SocialError(_("Choose how long the match is."))
    try:
        return gameplay_services.options_validate(game=game, options={"players": players, name: length})
    except TableError as error:
        raise SocialError(str(error)) from None


POOL_RATED, POOL_CASUAL = "rated", "casual"
"""The two sides of every pool, never paired together: established accounts that want rated play, and
everyone else (newcomers, and whoever asked for casual), so a newcomer's seat never spoils a rated
match (``tables.rated``) and a newcomer never waits for a rated table they cannot have."""


def pool_key(game: str, options: dict, side: str) -> str:
    name, _lengths = POOL_LENGTHS[game]
    return f"{game}:{options['players']}:{options[name]}:{side}"


def pool_side(*, user, casual: bool) -> str:
    """The side of the pool ``user`` waits on: rated only for an established account that did not
    ask for casual."""
    return POOL_RATED if not casual and is_established(user) else POOL_CASUAL


def pool_rated(pool: str) -> bool:
    """Whether the tables ``pool`` (a ``pool_key``) makes ask to be rated: its rated side's."""
    return pool.endswith(f":{POOL_RATED}")


def _busy(user_ids) -> set[int]:
    """Who among ``user_ids`` sits at a table not over yet (waiting for players, or playing)."""
    return set(
        Seat.objects.filter(user_id__in=user_ids, table__status__in=Table.NOT_OVER).values_list(
            "user_id", flat=True
        )
    )


def _spend_pool_join(user, address: str | None) -> None:
    """Spend a join from the person's budget and (from a browser) their address's, before any
    database work."""
    if shortfall := limits.spend_person_and_address(
        "pool-joins",
        user.pk,
        address,
        count=settings.POOL_JOINS_PER_MINUTE,
        address_count=settings.POOL_JOINS_PER_ADDRESS_PER_MINUTE,
        seconds=60,
        refusal=_("You joined and left too often: try again in %(seconds)d s."),
        address_refusal=_("Too many joins have come from your network just now: try again in %(seconds)d s."),
    ):
        raise SocialError(shortfall.said)


def pool_join(
    *,
    user,
    game: str,
    players: int,
    length,
    fill_with_bots: bool,
    casual: bool = False,
    address: str | None = None,
) -> PoolEntry:
    """``user`` looks for a match: in this pool only (joining another leaves the last), never while
    at a table not over yet; on its casual side if they ask (``casual``) or their account is not
    established yet (``pool_side``). Pairing runs at once, after the join commits. ``address``: the
    browser's (None: not from one), whose budget the join spends too. Never a bot account: the pool
    is the people's."""
    if user.is_bot_account:
        raise SocialError(_("The pool pairs people only: a bot account plays where it is invited or seated."))
    options = pool_options(game=game, players=players, length=length)
    _spend_pool_join(user, address)
    with transaction.atomic(durable=True):
        # One join of a person at a time (a double click, a second tab): their row is locked first, for
        # no key update, so the tables made meanwhile can still name them.
        get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        entry = (
            PoolEntry.objects.select_for_update(of=("self",))
            .filter(user=user)
            .select_related("table")
            .first()
        )
        if entry is not None and entry.table is not None and entry.table.status in Table.NOT_OVER:
            return entry  # already paired: the page opens its table
        if _busy([user.pk]):
            raise SocialError(_("You are already at a table: finish its match or leave it first."))
        signals.pool_joining.send(sender=PoolEntry, user=user)
        now = timezone.now()
        rating = shown_ratings(user_ids=[user.pk], game=game)[user.pk]
        key = pool_key(game, options, pool_side(user=user, casual=casual))
        values = {
            "table": None,
            "paired_at": None,
            "game": game,
            "options": options,
            "pool": key,
            "rating": rating,
            "fill_with_bots": fill_with_bots,
            "seen_at": now,
        }
        if entry is None:
            entry = PoolEntry.objects.create(user=user, joined_at=now, **values)
        else:
            if entry.pool != key or entry.table_id is not None:
                entry.joined_at = now
            for name, value in values.items():
                setattr(entry, name, value)
            entry.save()
    pool_pair(pool=entry.pool)
    return PoolEntry.objects.filter(pk=entry.pk).first() or entry


@transaction.atomic(durable=True)
def pool_leave(*, user) -> int | None:
    """``user`` stops looking (Cancel). The table's id when the pool had already seated them."""
    entry = PoolEntry.objects.select_for_update().filter(user=user).first()
    if entry is None:
        return None
    table_id = entry.table_id
    entry.delete()
    return table_id


def pool_leave_within(*, user_ids: list[int]) -> None:
    """``user_ids`` stop looking, inside the caller's transaction (they join a tournament, or one they
    joined starts). A pairing holding their entries is waited for; a table it made stays theirs."""
    PoolEntry.objects.filter(user_id__in=user_ids, table__isnull=True).delete()


def pool_seen(*, user_ids: list[int]) -> dict[int, int]:
    """The pages of ``user_ids`` that look are still open (their process's heartbeat); the tables the
    pool has already made for any of them, by person."""
    now = timezone.now()
    with transaction.atomic(durable=True):
        # Rows a pairing (or a join, a Cancel) holds are skipped, not waited for: an UPDATE would wait
        # for that transaction while holding the rows it had already stamped, so other pairings would
        # skip those people meanwhile, and the heartbeat would stall. The next beat stamps them.
        free = PoolEntry.objects.select_for_update(skip_locked=True).filter(
            user_id__in=user_ids, table__isnull=True
        )
        PoolEntry.objects.filter(pk__in=list(free.values_list("pk", flat=True))).update(seen_at=now)
    return dict(
        PoolEntry.objects.filter(user_id__in=user_ids, table__isnull=False).values_list("user_id", "table_id")
    )


def _window() -> matching.Window:
    return matching.Window(start=settings.POOL_WINDOW_START, per_second=settings.POOL_WINDOW_PER_SECOND)


def _blocked_pairs(user_ids: list[int]) -> set[frozenset[int]]:
    pairs = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids).values_list(
        "blocker_id", "blocked_id"
    )
    return {frozenset(pair) for pair in pairs}


@transaction.atomic(durable=True)
def pool_pair(*, pool: str) -> list[int]:
    """Make every table the pool can: full ones, the closest ratings first, and ones bots complete
    for those who waited long enough; the ids of the tables made. Rows another pairing holds are
    skipped (theirs to pair), so two pairings at once never seat a person twice."""
    now = timezone.now()
    fresh = now - timedelta(seconds=settings.POOL_STALE_SECONDS)
    entries = list(
        PoolEntry.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(pool=pool, table__isnull=True, seen_at__gte=fresh, user__is_active=True)
        .select_related("user")
        .order_by("joined_at")
    )
    if not entries:
        return []
    busy = _busy([entry.user_id for entry in entries])
    if busy:  # sat down elsewhere meanwhile: no longer looking
        PoolEntry.objects.filter(pk__in=[entry.pk for entry in entries if entry.user_id in busy]).delete()
        entries = [entry for entry in entries if entry.user_id not in busy]
    by_id = {entry.pk: entry for entry in entries}
    waiting = [
        matching.Waiting(
            entry.pk,
            entry.user_id,
            entry.rating,
            (now - entry.joined_at).total_seconds(),
            entry.fill_with_bots,
        )
        for entry in entries
    ]
    if not entries:
        return []
    first = entries[0]
    size = int(first.options["players"])
    blocked = _blocked_pairs([entry.user_id for entry in entries])
    full = matching.groups(waiting, size, _window(), blocked)
    seated = {member.entry for group in full for member in group}
    short = matching.bot_fills(
        [person for person in waiting if person.entry not in seated],
        size,
        settings.POOL_BOT_FILL_SECONDS,
        blocked,
    )
    made = []
    for group in [*full, *short]:
        members = [by_id[member.entry] for member in group]
        random.shuffle(members)  # who sits where (and leads) is the luck of the draw
        table = gameplay_services.table_for_people(
            people=[entry.user for entry in members],
            game=first.game,
            options=first.options,
            rated=pool_rated(pool),
            bot_level=BotLevel.NORMAL if len(members) < size else "",
        )
        PoolEntry.objects.filter(pk__in=[entry.pk for entry in members]).update(table=table, paired_at=now)
        for entry in members:
            events.pool_paired(entry.user_id, table.pk)
        made.append(table.pk)
    return made


def pool_tick() -> int:
    """Celery beat's, every second: pair every pool that has someone waiting, and forget who stopped
    looking (no page heard of for ``POOL_STALE_SECONDS``) and the tables long since opened. How many
    tables it made."""
    now = timezone.now()
    PoolEntry.objects.filter(
        table__isnull=True, seen_at__lt=now - timedelta(seconds=settings.POOL_STALE_SECONDS)
    ).delete()
    PoolEntry.objects.filter(
        paired_at__lt=now - timedelta(seconds=settings.POOL_PAIRED_KEPT_SECONDS)
    ).delete()
    pools = PoolEntry.objects.filter(table__isnull=True).values_list("pool", flat=True).distinct()
    return sum(len(pool_pair(pool=pool)) for pool in list(pools))


def pool_left_for_seat(sender, *, table: Table, user, **kwargs) -> None:
    """``tables.signals.person_sitting``'s receiver (connected in ``apps``): a person sitting down in the
    lobby leaves the pool. Their entry's row is locked first, so a pairing that holds it is waited for;
    if it seated them meanwhile, the lobby's seat is refused (the pool's table is theirs)."""
    entry = PoolEntry.objects.select_for_update().filter(user=user).first()
    if entry is None:
        return
    if entry.table_id is None:
        entry.delete()
    # The pool's table read in a statement of its own: one that waited for the entry's lock would
    # not see a table made meanwhile.
    elif Table.objects.filter(pk=entry.table_id, status__in=Table.NOT_OVER).exclude(pk=table.pk).exists():
        raise TableError(_("The pool has just found you a table: play that match first."))


def pool_opened(*, user) -> None:
    """The person has opened the table the pool made for them: their entry is done with."""
    PoolEntry.objects.filter(user=user, table__isnull=False).delete()
