"""What the social layer does when gameplay tells it something: the site socket, which it owns, keeps
each person's count of matches waiting for their move current on whatever page they have open."""

from tables.models import Seat

from . import events


def pace_turns_changed(sender, *, table_id: int, **kwargs) -> None:
    """At a table at its own pace the move it waits for changed hands: every person seated there has
    their count told again (ids only; each page recounts for its own person)."""
    seated = Seat.objects.filter(table_id=table_id, user__isnull=False).values_list("user_id", flat=True)
    for user_id in seated:
        events.pace_turns(user_id)
