"""Invitations and notices: a friend invited to a table still waiting, the invitation accepted (a seat
taken) or lapsed, a notice put away, the bell read."""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tables import services as table_services
from tables.models import Table
from tables.services import TableError

from ..models import Friendship, Notice
from .friends import are_friends, blocked_either_way
from .shared import SocialError, notify, spend_request


def _table_has_room(table: Table) -> bool:
    return (
        table.status == Table.Status.WAITING and table.seats.filter(user__isnull=True, bot_level="").exists()
    )


@transaction.atomic(durable=True)
def invitation_send(*, by, table_id: int, friend_id: int, address: str | None = None) -> str:
    """``by``, seated at a table still waiting, invites a friend to it; every answer spends from the
    budgets (``spend_request``; ``address``: the browser's, None when not from one)."""
    spend_request(by, address, friend_id)
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not table.seats.filter(user=by).exists():
        raise SocialError(_("Only the players at a table can invite to it."))
    if not _table_has_room(table):
        raise SocialError(_("This table has no free seat to invite anyone to."))
    if not are_friends(by.pk, friend_id) or blocked_either_way(by.pk, friend_id):
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
    notify(recipient_id=friend_id, kind=Notice.Kind.INVITATION, sender=by, table_id=table.pk)
    return _("%(name)s has been invited.") % {"name": friend_name}


def _invitation_open(notice: Notice) -> bool:
    """An invitation still stands while nobody has put it away, the two are friends and neither has
    blocked the other, and the one who invited still sits at the table."""
    return (
        not notice.closed
        and are_friends(notice.sender_id, notice.recipient_id)
        and blocked_either_way(notice.sender_id, notice.recipient_id) is None
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
