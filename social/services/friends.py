"""Friends and blocks: a friend request sent, answered or withdrawn, a friend removed, a person blocked
or unblocked. A block is never told to the person blocked."""

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from .. import signals
from ..models import Block, FriendRequest, Friendship, Notice
from .shared import SocialError, notify, spend_request


def blocked_either_way(a: int, b: int) -> Block | None:
    return Block.objects.filter(Q(blocker_id=a, blocked_id=b) | Q(blocker_id=b, blocked_id=a)).first()


def are_friends(a: int, b: int) -> bool:
    return Friendship.objects.filter(person_id=a, friend_id=b).exists()


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
    from the budgets (``spend_request``; ``address``: the browser's, None when not from one). Not
    before the sender's email is confirmed: a throwaway account asks nobody."""
    if sender.email_confirmed_at is None:
        raise SocialError(
            _(
                "You can send friend requests once your email address is confirmed: open the link we "
                "mailed you, or ask for a new one on your profile page."
            )
        )
    spend_request(sender, address, recipient.pk if recipient is not None else None)
    if recipient is None or not recipient.is_active:
        raise SocialError(_("There is no such player."))
    if recipient.pk == sender.pk:
        raise SocialError(_("You cannot be your own friend."))
    block = blocked_either_way(sender.pk, recipient.pk)
    if block is not None and block.blocker_id == sender.pk:
        raise SocialError(_("You have blocked %(name)s: unblock them first.") % {"name": recipient.username})
    if are_friends(sender.pk, recipient.pk):
        return _("You are already friends with %(name)s.") % {"name": recipient.username}
    if FriendRequest.objects.filter(sender=recipient, recipient=sender).exists():
        _befriend(sender, recipient)
        notify(recipient_id=recipient.pk, kind=Notice.Kind.FRIEND_ACCEPTED, sender=sender)
        return _("You and %(name)s are now friends.") % {"name": recipient.username}
    if FriendRequest.objects.filter(sender=sender, recipient=recipient).exists():
        return _("Your request to %(name)s is waiting for an answer.") % {"name": recipient.username}
    FriendRequest.objects.create(sender=sender, recipient=recipient)
    if block is None:  # the blocker is never told, and never sees the request
        notify(recipient_id=recipient.pk, kind=Notice.Kind.FRIEND_REQUEST, sender=sender)
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
    if request is None or blocked_either_way(user.pk, sender_id):
        raise SocialError(_("This friend request is no longer waiting for an answer."))
    if accept:
        _befriend(user, request.sender)
        notify(recipient_id=sender_id, kind=Notice.Kind.FRIEND_ACCEPTED, sender=user)
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
