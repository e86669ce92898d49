"""What privacy asks of the social side: a closed account forgotten, and notices past their keeping
time deleted."""

from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from ..models import Block, FriendRequest, Friendship, Notice, PoolEntry


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
