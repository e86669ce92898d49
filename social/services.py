"""The social layer's writes: the pairing pool, friends, blocks, invitations and notices.

Lock order: a joining person's own row (for no key update), then ``PoolEntry`` rows, then
everything of gameplay's (Table → Match → Seat): pairing claims entries, then has gameplay make and
start the table, in one transaction, so a person is seated by the pool once or not at all.
"""

import random
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import limits
from accounts.selectors import is_established
from gameplay import services as gameplay_services
from ratings.selectors import shown_ratings
from tables import services as table_services
from tables.models import BotLevel, Game, Seat, Table
from tables.services import TableError

from . import events, matching, signals
from .models import Block, FriendRequest, Friendship, Notice, PoolEntry


class SocialError(Exception):
    """A request the social layer refuses; the text is for the person."""


# --- The pairing pool ------------------------------------------------------------------------


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
    budgets = [
        limits.Budget.per(
            f"pool-joins:{user.pk}",
            settings.POOL_JOINS_PER_MINUTE,
            60,
            _("You joined and left too often: try again in %(seconds)d s."),
        )
    ]
    if address is not None:
        budgets.append(
            limits.Budget.per(
                f"pool-joins:addr:{address}",
                settings.POOL_JOINS_PER_ADDRESS_PER_MINUTE,
                60,
                _("Too many joins have come from your network just now: try again in %(seconds)d s."),
            )
        )
    if shortfall := limits.spend_all(*budgets):
        raise SocialError(shortfall.budget.refusal % {"seconds": max(1, round(shortfall.wait))})


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
    browser's (None: not from one), whose budget the join spends too."""
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


# --- Friends and blocks ----------------------------------------------------------------------


def _blocked_either_way(a: int, b: int) -> Block | None:
    return Block.objects.filter(Q(blocker_id=a, blocked_id=b) | Q(blocker_id=b, blocked_id=a)).first()


def _are_friends(a: int, b: int) -> bool:
    return Friendship.objects.filter(person_id=a, friend_id=b).exists()


def _notify(*, recipient_id: int, kind: str, sender, table_id: int | None = None) -> Notice:
    notice = Notice.objects.create(recipient_id=recipient_id, kind=kind, sender=sender, table_id=table_id)
    events.notice_new(recipient_id, notice.pk)
    return notice


def _spend_request(sender, address: str | None, recipient_id: int | None) -> None:
    """Spend a friend request or an invitation, before any database work: from the sender's budget,
    their address's (from a browser) and the recipient's (however many send to them, a person gets
    ``SOCIAL_REQUESTS_RECEIVED_PER_HOUR`` notices of them an hour)."""
    budgets = [
        limits.Budget.per(
            f"social-requests:{sender.pk}",
            settings.SOCIAL_REQUESTS_PER_HOUR,
            3600,
            _("You have sent too many requests and invitations: try again later."),
        )
    ]
    if address is not None:
        budgets.append(
            limits.Budget.per(
                f"social-requests:addr:{address}",
                settings.SOCIAL_REQUESTS_PER_ADDRESS_PER_HOUR,
                3600,
                _("Too many requests and invitations have come from your network: try again later."),
            )
        )
    if recipient_id is not None:
        budgets.append(
            limits.Budget.per(
                f"social-requests:to:{recipient_id}",
                settings.SOCIAL_REQUESTS_RECEIVED_PER_HOUR,
                3600,
                _("This player has been sent many requests and invitations just now: try again later."),
            )
        )
    if shortfall := limits.spend_all(*budgets):
        raise SocialError(shortfall.budget.refusal)


def _befriend(a, b) -> None:
    Friendship.objects.bulk_create(
        [Friendship(person=a, friend=b), Friendship(person=b, friend=a)], ignore_conflicts=True
    )
    FriendRequest.objects.filter(Q(sender=a, recipient=b) | Q(sender=b, recipient=a)).delete()
    Notice.objects.filter(
        Q(recipient=a, sender=b) | Q(recipient=b, sender=a), kind=Notice.Kind.FRIEND_REQUEST, closed=False
    ).update(closed=True)


@transaction.atomic(durable=True)
def friend_request_send(*, sender, recipient, address: str | None = None) -> str:
    """Ask ``recipient`` to be friends; if they asked first, that is a yes. Says what happened. A
    request to someone who blocked the sender reads to the sender as any other (it waits, unanswered,
    as one the recipient ignores): a block is not told to the person blocked. Every answer spends
    from the budgets (``_spend_request``; ``address``: the browser's, None when not from one). Not
    before the sender's email is confirmed: a throwaway account asks nobody."""
    if sender.email_confirmed_at is None:
        raise SocialError(
            _(
                "You can send friend requests once your email address is confirmed: open the link we "
                "mailed you, or ask for a new one on your profile page."
            )
        )
    _spend_request(sender, address, recipient.pk if recipient is not None else None)
    if recipient is None or not recipient.is_active:
        raise SocialError(_("There is no such player."))
    if recipient.pk == sender.pk:
        raise SocialError(_("You cannot be your own friend."))
    block = _blocked_either_way(sender.pk, recipient.pk)
    if block is not None and block.blocker_id == sender.pk:
        raise SocialError(_("You have blocked %(name)s: unblock them first.") % {"name": recipient.username})
    if _are_friends(sender.pk, recipient.pk):
        return _("You are already friends with %(name)s.") % {"name": recipient.username}
    if FriendRequest.objects.filter(sender=recipient, recipient=sender).exists():
        _befriend(sender, recipient)
        _notify(recipient_id=recipient.pk, kind=Notice.Kind.FRIEND_ACCEPTED, sender=sender)
        return _("You and %(name)s are now friends.") % {"name": recipient.username}
    if FriendRequest.objects.filter(sender=sender, recipient=recipient).exists():
        return _("Your request to %(name)s is waiting for an answer.") % {"name": recipient.username}
    FriendRequest.objects.create(sender=sender, recipient=recipient)
    if block is None:  # the blocker is never told, and never sees the request
        _notify(recipient_id=recipient.pk, kind=Notice.Kind.FRIEND_REQUEST, sender=sender)
    return _("Friend request sent to %(name)s.") % {"name": recipient.username}


@transaction.atomic(durable=True)
def friend_request_answer(*, user, sender_id: int, accept: bool) -> None:
    """Accept or decline the request ``sender_id`` sent ``user``."""
    request = (
        FriendRequest.objects.select_for_update(of=("self",))
        .filter(sender_id=sender_id, recipient=user)
        .select_related("sender")
        .first()
    )
    if request is None or _blocked_either_way(user.pk, sender_id):
        raise SocialError(_("This friend request is no longer waiting for an answer."))
    if accept:
        _befriend(user, request.sender)
        _notify(recipient_id=sender_id, kind=Notice.Kind.FRIEND_ACCEPTED, sender=user)
    else:
        request.delete()
        Notice.objects.filter(recipient=user, sender_id=sender_id, kind=Notice.Kind.FRIEND_REQUEST).update(
            closed=True
        )


@transaction.atomic(durable=True)
def friend_request_withdraw(*, user, recipient_id: int) -> None:
    FriendRequest.objects.filter(sender=user, recipient_id=recipient_id).delete()
    Notice.objects.filter(recipient_id=recipient_id, sender=user, kind=Notice.Kind.FRIEND_REQUEST).update(
        closed=True
    )


def _unfriend(a: int, b: int) -> None:
    Friendship.objects.filter(Q(person_id=a, friend_id=b) | Q(person_id=b, friend_id=a)).delete()


@transaction.atomic(durable=True)
def friend_remove(*, user, friend_id: int) -> None:
    _unfriend(user.pk, friend_id)


@transaction.atomic(durable=True)
def block(*, user, other) -> None:
    """``user`` blocks ``other``: no friendship, no request or invitation either way, and the pool
    never seats them together (nor, once it exists, does either hear the other's chat)."""
    if other is None:
        raise SocialError(_("There is no such player."))
    if other.pk == user.pk:
        raise SocialError(_("You cannot block yourself."))
    Block.objects.get_or_create(blocker=user, blocked=other)
    _unfriend(user.pk, other.pk)
    FriendRequest.objects.filter(Q(sender=user, recipient=other) | Q(sender=other, recipient=user)).delete()
    Notice.objects.filter(
        Q(recipient=user, sender=other) | Q(recipient=other, sender=user), closed=False
    ).update(closed=True)
    _tell_block_changed(user.pk, other.pk)


@transaction.atomic(durable=True)
def unblock(*, user, other_id: int) -> None:
    if Block.objects.filter(blocker=user, blocked_id=other_id).delete()[0]:
        _tell_block_changed(user.pk, other_id)


def _tell_block_changed(a: int, b: int) -> None:
    transaction.on_commit(lambda: signals.block_changed.send(sender=Block, user_ids=(a, b)))


# --- Invitations and notices -----------------------------------------------------------------


def _table_has_room(table: Table) -> bool:
    return (
        table.status == Table.Status.WAITING and table.seats.filter(user__isnull=True, bot_level="").exists()
    )


@transaction.atomic(durable=True)
def invitation_send(*, by, table_id: int, friend_id: int, address: str | None = None) -> str:
    """``by``, seated at a table still waiting, invites a friend to it; every answer spends from the
    budgets (``_spend_request``; ``address``: the browser's, None when not from one)."""
    _spend_request(by, address, friend_id)
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not table.seats.filter(user=by).exists():
        raise SocialError(_("Only the players at a table can invite to it."))
    if not _table_has_room(table):
        raise SocialError(_("This table has no free seat to invite anyone to."))
    if not _are_friends(by.pk, friend_id) or _blocked_either_way(by.pk, friend_id):
        raise SocialError(_("You can invite only your friends."))
    if table.seats.filter(user_id=friend_id).exists():
        raise SocialError(_("Your friend already sits at this table."))
    friend_name = (
        Friendship.objects.filter(person=by, friend_id=friend_id)
        .values_list("friend__username", flat=True)
        .first()
    )
    if Notice.objects.filter(
        recipient_id=friend_id, table=table, kind=Notice.Kind.INVITATION, closed=False
    ).exists():
        return _("%(name)s has been invited already.") % {"name": friend_name}
    _notify(recipient_id=friend_id, kind=Notice.Kind.INVITATION, sender=by, table_id=table.pk)
    return _("%(name)s has been invited.") % {"name": friend_name}


def _invitation_open(notice: Notice) -> bool:
    """An invitation still stands while nobody has put it away, the two are friends and neither has
    blocked the other, and the one who invited still sits at the table."""
    return (
        not notice.closed
        and _are_friends(notice.sender_id, notice.recipient_id)
        and _blocked_either_way(notice.sender_id, notice.recipient_id) is None
        and notice.table.seats.filter(user_id=notice.sender_id).exists()
    )


def invitation_accept(*, user, notice_id: int) -> int:
    """Sit down at the table the invitation is for, if it still stands (``_invitation_open``); the
    table's id. One wording for every reason it no longer stands, so a block is not told."""
    with transaction.atomic(durable=True):
        notice = (
            Notice.objects.select_for_update(of=("self",))
            .filter(pk=notice_id, recipient=user, kind=Notice.Kind.INVITATION)
            .select_related("table")
            .first()
        )
        if notice is None:
            raise SocialError(_("There is no such invitation."))
        table, standing = notice.table, _invitation_open(notice)
        notice.closed, notice.read_at = True, notice.read_at or timezone.now()
        notice.save(update_fields=["closed", "read_at"])
    if table.seats.filter(user=user).exists():
        return table.pk
    if not _table_has_room(table):
        raise SocialError(_("This invitation has lapsed: the table has filled or started."))
    if not standing:
        raise SocialError(_("This invitation no longer stands."))
    try:
        table_services.seat_take(table_id=table.pk, user=user, token=table.invite_token)
    except TableError as error:
        raise SocialError(str(error)) from None
    return table.pk


@transaction.atomic(durable=True)
def notice_close(*, user, notice_id: int) -> None:
    """Decline an invitation, or put a notice away."""
    Notice.objects.filter(pk=notice_id, recipient=user).update(closed=True, read_at=timezone.now())


@transaction.atomic(durable=True)
def notices_read(*, user) -> None:
    """The person has seen their notices (opened the bell): the count goes back to nought."""
    Notice.objects.filter(recipient=user, read_at__isnull=True).update(read_at=timezone.now())


def invitations_lapse(sender, *, table: Table, **kwargs) -> None:
    """``tables.signals.table_filled``'s receiver: the table is full and playing, so its invitations
    have nothing left to offer. Inside that transaction."""
    Notice.objects.filter(table=table, kind=Notice.Kind.INVITATION, closed=False).update(closed=True)


def person_forget(*, user_id: int) -> None:
    """A closed account leaves the social side without a trace, inside the caller's transaction: its
    place in the pool, its friendships, friend requests and blocks both ways, and every notice to or
    from it (invitations included)."""
    PoolEntry.objects.filter(user_id=user_id).delete()
    Friendship.objects.filter(Q(person_id=user_id) | Q(friend_id=user_id)).delete()
    FriendRequest.objects.filter(Q(sender_id=user_id) | Q(recipient_id=user_id)).delete()
    Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id)).delete()
    Notice.objects.filter(Q(recipient_id=user_id) | Q(sender_id=user_id)).delete()


def notices_forget_old() -> int:
    """Delete the notices sent more than ``NOTICE_KEEP_DAYS`` ago (the privacy page's promise, kept by
    the retention job); how many went."""
    sent_before = timezone.now() - timedelta(days=settings.NOTICE_KEEP_DAYS)
    return Notice.objects.filter(created_at__lt=sent_before).delete()[0]
