"""What the tournament jobs share: the refusal they raise, the budget joining and leaving spend, who is
busy at a table, and the lock every job takes first.

Lock order: the person's row (a join, for no key update), then the ``Tournament`` row, then its ``Entry``
rows, then everything of gameplay's (Table → Match → Seat). Pairing takes the tournament's row and the
entries with ``SKIP LOCKED``: one pairing of a tournament at a time, and a pairing never waits behind a
score or another tournament's pairing (whoever it would wait for waits for the next pairing)."""

from django.conf import settings
from django.db.models import Q
from django.utils.translation import gettext as _

from accounts import limits
from tables.models import Seat, Table

from ..models import Entry, Tournament


class TournamentError(Exception):
    """A request about a tournament that cannot be done; the text says why, in the active language."""


def spend_entry_change(user, address: str | None) -> None:
    """Spend a join, pause, withdrawal or return from the person's budget and (from a browser) their
    address's, before any database work."""
    if shortfall := limits.spend_person_and_address(
        "tournament-entries",
        user.pk,
        address,
        count=settings.TOURNAMENT_ENTRIES_PER_MINUTE,
        address_count=settings.TOURNAMENT_ENTRIES_PER_ADDRESS_PER_MINUTE,
        seconds=60,
        refusal=_("You joined and left tournaments too often: try again in %(seconds)d s."),
        address_refusal=_(
            "Too many tournament joins came from your network just now: try again in %(seconds)d s."
        ),
    ):
        raise TournamentError(shortfall.said)


def busy(user_ids, *, except_tables=()) -> set[int]:
    """Who among ``user_ids`` sits at a table not over yet (other than ``except_tables``)."""
    seats = Seat.objects.filter(user_id__in=list(user_ids), table__status__in=Table.NOT_OVER)
    return set(seats.exclude(table_id__in=list(except_tables)).values_list("user_id", flat=True))


def playing(tournament: Tournament):
    """The tournament's entries still in it (not disqualified)."""
    return Entry.objects.filter(tournament=tournament, disqualified_at__isnull=True)


def free_of_tables() -> Q:
    """Entries not at a tournament table still being played."""
    return Q(table__isnull=True) | ~Q(table__status__in=Table.NOT_OVER)


def held_elsewhere(tournament: Tournament, user_ids) -> set[int]:
    """Who among ``user_ids`` another running tournament's job holds now (its pairing, a score): their
    entries there are locked here, skipping those held, so a person in two tournaments is seated by
    one pairing at a time and the other finds them busy. Call holding ``tournament``'s lock and their
    entries in it."""
    others = Entry.objects.filter(
        user_id__in=list(user_ids),
        tournament__status=Tournament.Status.RUNNING,
        paused=False,
        disqualified_at__isnull=True,
    ).exclude(tournament=tournament)
    claimed = set(others.select_for_update(of=("self",), skip_locked=True).values_list("pk", flat=True))
    return {user_id for pk, user_id in others.values_list("pk", "user_id") if pk not in claimed}


def lock_tournament(tournament_id: int, *, skip_locked: bool = False) -> Tournament | None:
    return Tournament.objects.select_for_update(skip_locked=skip_locked).filter(pk=tournament_id).first()
