"""What the social jobs share: the refusal they raise, a notice sent (and its person told), and the
budgets a friend request and an invitation both spend from."""

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from accounts import limits

from .. import events, signals
from ..models import Notice


class SocialError(Exception):
    """A request the social layer refuses; the text is for the person."""


def notify(
    *, recipient_id: int, kind: str, sender, table_id: int | None = None, subject: str = "", link: str = ""
) -> Notice:
    """Keep a notice for ``recipient_id`` and show it on their open pages once the transaction
    commits, then tell the apps above (``signals.notice_kept``). ``sender`` None: the site's own (a
    tournament starting), about ``subject`` at ``link``."""
    notice = Notice.objects.create(
        recipient_id=recipient_id, kind=kind, sender=sender, table_id=table_id, subject=subject, link=link
    )
    events.notice_new(recipient_id, notice.pk)
    transaction.on_commit(
        lambda: signals.notice_kept.send(Notice, recipient_id=recipient_id, notice_id=notice.pk, kind=kind)
    )
    return notice


def spend_request(sender, address: str | None, recipient_id: int | None) -> None:
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
