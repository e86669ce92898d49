"""What the tournaments do when the apps below them say something happened (connected in ``apps``)."""

from django.utils.translation import gettext as _

from social.services import SocialError

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
