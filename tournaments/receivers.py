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
    """``tables.signals.person_sitting``: a person sitting down at a lobby table is paused in the
    tournament they play in (their entry locked first, so a pairing that holds it is waited for; if it
    seated them meanwhile, the lobby's seat is refused)."""
    entry = (
        Entry.objects.select_for_update()
        .filter(user=user, paused=False, tournament__status=Tournament.Status.RUNNING)
        .first()
    )
    if entry is None:
        return
    if (
        entry.table_id is not None
        and entry.table_id != table.pk
        and Table.objects.filter(pk=entry.table_id, status__in=Table.NOT_OVER).exists()
    ):
        raise TableError(_("Your tournament has just seated you: play that match first."))
    entry.paused = True
    entry.save(update_fields=["paused"])
