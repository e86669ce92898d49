"""The social layer's reads: counts of who is online, the pools, friends and their whereabouts,
notices, and the tables being played now."""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from gameplay import presence
from tables.models import Seat, Table

from .models import Block, FriendRequest, Friendship, Notice, PoolEntry

COUNTS_KEY = "social:site-counts"
POOLS_KEY = "social:pool-counts"


@dataclass(frozen=True)
class SiteCounts:
    online: int
    """People (and visitors not logged in, a tab each) with a page of the site open."""
    at_tables: int
    """People online seated at a table whose match is being played."""


def site_counts() -> SiteCounts:
    """Counted from the site-wide sockets' presence at most once every ``SITE_COUNTS_SECONDS`` for
    the whole site (the cache is shared), never once per request."""
    counted = cache.get(COUNTS_KEY)
    if counted is None:
        people, visitors = presence.site_people()
        playing = set(
            Seat.objects.filter(table__status=Table.Status.PLAYING, user__isnull=False).values_list(
                "user_id", flat=True
            )
        )
        counted = (len(people) + visitors, len(people & playing))
        cache.set(COUNTS_KEY, counted, settings.SITE_COUNTS_SECONDS)
    return SiteCounts(*counted)


def pool_counts() -> dict[str, int]:
    """How many look in each pool (their page heard of lately), counted at most every two seconds."""
    counted = cache.get(POOLS_KEY)
    if counted is None:
        fresh = timezone.now() - timedelta(seconds=settings.POOL_STALE_SECONDS)
        rows = (
            PoolEntry.objects.filter(table__isnull=True, seen_at__gte=fresh)
            .values("pool")
            .annotate(looking=Count("pk"))
            .values_list("pool", "looking")
        )
        counted = dict(rows)
        cache.set(POOLS_KEY, counted, 2)
    return counted


def pool_entry_of(*, user) -> PoolEntry | None:
    return PoolEntry.objects.filter(user=user).first() if user.is_authenticated else None


@dataclass(frozen=True)
class Friend:
    id: int
    username: str
    online: bool
    watch_table: int | None
    """A public table, waiting or playing, where the friend sits: a Watch link."""
    is_bot_account: bool = False
    """A bot account (a program its owner runs), marked as one beside its name."""


def friends_of(*, user) -> list[Friend]:
    """Online first, then by name."""
    rows = list(
        Friendship.objects.filter(person=user)
        .values_list("friend_id", "friend__username", "friend__is_bot_account")
        .order_by("friend__username")
    )
    ids = [friend_id for friend_id, _name, _bot in rows]
    online, _visitors = presence.site_people() if ids else (set(), 0)
    tables = dict(
        Seat.objects.filter(
            user_id__in=ids,
            table__is_private=False,
            table__status__in=Table.NOT_OVER,
        ).values_list("user_id", "table_id")
    )
    friends = [
        Friend(friend_id, name, friend_id in online, tables.get(friend_id), bot)
        for friend_id, name, bot in rows
    ]
    return sorted(friends, key=lambda friend: not friend.online)


def _requests_heard_by(user) -> QuerySet[FriendRequest]:
    """Requests to ``user`` from people ``user`` has not blocked (a blocked person's wait unanswered)."""
    return FriendRequest.objects.filter(recipient=user).exclude(
        sender_id__in=Block.objects.filter(blocker=user).values("blocked_id")
    )


def requests_to(*, user) -> list[FriendRequest]:
    return list(_requests_heard_by(user).select_related("sender").order_by("-created_at"))


def requests_from(*, user) -> list[FriendRequest]:
    return list(FriendRequest.objects.filter(sender=user).select_related("recipient").order_by("-created_at"))


def blocked_by(*, user) -> list[Block]:
    return list(Block.objects.filter(blocker=user).select_related("blocked").order_by("blocked__username"))


@dataclass(frozen=True)
class Relation:
    """Where the viewer stands with another person: what a profile's buttons offer."""

    friends: bool
    request_sent: bool
    request_received: bool
    blocked: bool
    """The viewer blocked them."""


def relation(*, user, other_id: int) -> Relation:
    return Relation(
        friends=Friendship.objects.filter(person=user, friend_id=other_id).exists(),
        request_sent=FriendRequest.objects.filter(sender=user, recipient_id=other_id).exists(),
        request_received=_requests_heard_by(user).filter(sender_id=other_id).exists(),
        blocked=Block.objects.filter(blocker=user, blocked_id=other_id).exists(),
    )


def unread_count(*, user) -> int:
    return Notice.objects.filter(recipient=user, read_at__isnull=True, closed=False).count()


def notices_of(*, user, limit: int = 50) -> list[Notice]:
    return list(
        Notice.objects.filter(recipient=user)
        .select_related("sender", "table")
        .order_by("-created_at")[:limit]
    )


def notice_for(*, notice_id: int, user_id: int) -> Notice | None:
    return Notice.objects.filter(pk=notice_id, recipient_id=user_id).select_related("sender", "table").first()


def friends_to_invite(*, table: Table, user) -> list[Friend]:
    """The viewer's friends who could sit at ``table``: it is waiting with a free seat, the viewer sits
    there, the friend does not. Those already invited are marked by ``invited_to``."""
    if table.status != Table.Status.WAITING or not user.is_authenticated:
        return []
    seated = set(table.seats.exclude(user__isnull=True).values_list("user_id", flat=True))
    if user.pk not in seated:
        return []
    return [friend for friend in friends_of(user=user) if friend.id not in seated]


def invited_to(*, table: Table) -> set[int]:
    return set(
        Notice.objects.filter(table=table, kind=Notice.Kind.INVITATION, closed=False).values_list(
            "recipient_id", flat=True
        )
    )


@dataclass(frozen=True)
class LiveTable:
    table: Table
    watching: int


def live_tables(limit: int = 20) -> list[LiveTable]:
    """Public tables whose match is being played, the most watched first, then the newest."""
    tables = list(
        Table.objects.filter(status=Table.Status.PLAYING, is_private=False)
        .prefetch_related("seats__user")
        .order_by("-started_at")[: limit * 2]
    )
    counts = presence.watchers([table.pk for table in tables])
    live = [LiveTable(table, counts.get(table.pk, 0)) for table in tables]
    live.sort(
        key=lambda entry: (
            -entry.watching,
            -(entry.table.started_at.timestamp() if entry.table.started_at else 0),
        )
    )
    return live[:limit]


def blocked_either_way(*, user_id: int) -> set[int]:
    """Everyone this person blocked or was blocked by: whose words neither may read of the other."""
    rows = Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id)).values_list(
        "blocker_id", "blocked_id"
    )
    return {other for pair in rows for other in pair if other != user_id}
