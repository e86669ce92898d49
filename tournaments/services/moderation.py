"""What moderators do to a tournament, through the admin: disqualify a player, cancel a tournament.
Each is logged with who did it and why, and never done by someone playing in the tournament."""

import contextlib

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import moderators
from gameplay import services as gameplay_services
from tables.models import Seat, Table
from tables.services import TableError

from .. import events
from ..models import Entry, ModeratorAction, Tournament
from .lifecycle import _cancel, places_kept
from .shared import TournamentError, lock_tournament


def _reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise TournamentError(_("Say why."))
    return reason[:300]


def _not_own_case(tournament: Tournament, by) -> None:
    if Entry.objects.filter(tournament=tournament, user_id=by.pk).exists():
        raise TournamentError(moderators.own_case_refusal())


def player_disqualify(*, tournament_id: int, user_id: int, by, reason: str) -> Entry:
    """Disqualify a player: their points and place removed (they leave the standing and are not seated
    again), and a bot takes the seat of a match they are playing now."""
    reason = _reason(reason)
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        if tournament is None:
            raise TournamentError(_("No such tournament."))
        _not_own_case(tournament, by)
        entry = Entry.objects.select_for_update().filter(tournament=tournament, user_id=user_id).first()
        if entry is None:
            raise TournamentError(_("This person is not in the tournament."))
        if entry.disqualified_at is not None:
            raise TournamentError(_("This player was disqualified already."))
        entry.disqualified_at, entry.points, entry.rank = timezone.now(), 0, None
        entry.save(update_fields=["disqualified_at", "points", "rank"])
        if tournament.status == Tournament.Status.FINISHED:
            places_kept(tournament, timezone.now())  # the others move up, and the podium with them
        ModeratorAction.objects.create(
            tournament=tournament,
            kind=ModeratorAction.Kind.DISQUALIFY,
            player_id=user_id,
            by=by,
            reason=reason,
        )
        events.tournament_changed(tournament.pk)
        seat = (
            Seat.objects.filter(table_id=entry.table_id, user_id=user_id, table__status=Table.Status.PLAYING)
            .values_list("table_id", "position")
            .first()
        )
    if seat is not None:
        with contextlib.suppress(TableError):  # the match ended meanwhile: nothing to take over
            gameplay_services.player_replace_with_bot(table_id=seat[0], position=seat[1])
    return entry


def tournament_cancel(*, tournament_id: int, by, reason: str) -> Tournament:
    """Cancel a tournament not over yet: nothing more scores, its players are told; tables being played
    finish as ordinary matches."""
    reason = _reason(reason)
    with transaction.atomic(durable=True):
        tournament = lock_tournament(tournament_id)
        if tournament is None or tournament.is_over:
            raise TournamentError(_("This tournament is over already."))
        _not_own_case(tournament, by)
        _cancel(tournament, reason, timezone.now())
        ModeratorAction.objects.create(
            tournament=tournament, kind=ModeratorAction.Kind.CANCEL, by=by, reason=reason
        )
    return tournament
