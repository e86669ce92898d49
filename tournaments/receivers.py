"""What the tournaments do when the apps below them say something happened (connected in ``apps``)."""

from django.utils.translation import gettext as _

from social.services import SocialError
from tables.models import Table
from tables.services import TableError

from .models import Entry, Tournament


def playing_now(user) -> Entry | None:
    """The person's entry in a running tournament they are not paused in, if any."""
    return (
        Entry.objects.filter(
            user=user,
            paused=False,
            disqualified_at__isnull=True,
            tournament__status=Tournament.Status.RUNNING,
        )
        .select_related("tournament")
        .first()
    )


def pool_refused_while_playing(sender, *, user, **kwargs) -> None:
    """``social.signals.pool_joining``: a person playing in a tournament does not join the pool."""
    if playing_now(user) is not None:
        raise SocialError(_("You are playing in a tournament: pause there first."))


def paused_for_seat(sender, *, table: Table, user, **kwargs) -> None:
    """``tables.signals.person_sitting``: a person sitting down at a lobby table is paused in every
    tournament they play in. Their entries are locked first (only they: the tournament's row is a
    pairing's to hold, and a lobby seat waiting for it would deadlock with a pairing waiting for the
    entry), so a pairing that holds them is waited for; if it seated them meanwhile, the lobby's seat
    is refused."""
    entries = list(
        Entry.objects.select_for_update(of=("self",)).filter(
            user=user, paused=False, tournament__status=Tournament.Status.RUNNING
        )
    )
    sent_to = {entry.table_id for entry in entries if entry.table_id not in (None, table.pk)}
    if Table.objects.filter(pk__in=sent_to, status__in=Table.NOT_OVER).exists():
        raise TableError(_("Your tournament has just seated you: play that match first."))
    Entry.objects.filter(pk__in=[entry.pk for entry in entries]).update(paused=True)
