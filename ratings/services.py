"""Every write to the ratings: a decided match rated, a rated match voided by a moderator, every
rating rebuilt from the matches. Each is one durable transaction.

Locks: the ``Rating`` rows of a match's people, always in person-id order (a void holds its match's
``RatedMatch`` row first; an update makes its match's row only once the ratings are locked). Two
matches of one person finishing at once (two tables) each wait for the other's update, never lose it;
a repeated event finds the match rated (one ``RatedMatch`` per match, one ``RatingChange`` per match
and person) and changes nothing.
"""

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Model, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import moderators
from gameplay.models import Match, Participant

from . import ledger
from .eligible import RatedSeats, bot_started, decided_seats, first_holders, rated_seats
from .models import RatedMatch, Rating, RatingChange

logger = logging.getLogger(__name__)

CATCH_UP_WITHIN = timedelta(days=2)
"""How far back the periodic catch-up looks for decided matches that missed their update."""


class RatingError(Exception):
    """A request about ratings that cannot be done; the text says why, in the active language."""


def _rated_now() -> datetime:
    """The moment of an update, from the database's clock once its ratings are locked: for two
    matches sharing a person, the later update reads a later time, whichever host made it."""
    if connection.vendor != "postgresql":
        return timezone.now()
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        (moment,) = cursor.fetchone()
    return moment


def _locked_entries(user_ids: list[int], game: str) -> dict[int, Rating]:
    """The people's ratings in ``game``, made when new and locked in person order."""
    ordered = sorted(set(user_ids))
    Rating.objects.bulk_create(
        [Rating(user_id=user_id, game=game) for user_id in ordered], ignore_conflicts=True
    )
    rows = Rating.objects.select_for_update().filter(game=game, user_id__in=ordered).order_by("user_id")
    return {row.user_id: row for row in rows}


def _entry(row: Rating) -> ledger.Entry:
    return ledger.Entry(
        mu=row.mu, sigma=row.sigma, matches=row.matches, peak=row.peak, last_played_at=row.last_played_at
    )


def _store(rows: dict[int, Rating], entries: dict[int, ledger.Entry]) -> None:
    for user_id, entry in entries.items():
        row = rows[user_id]
        row.mu, row.sigma, row.matches, row.peak = entry.mu, entry.sigma, entry.matches, entry.peak
        row.shown, row.established, row.last_played_at = entry.shown, entry.established, entry.last_played_at
    Rating.objects.bulk_update(
        list(rows.values()), ["mu", "sigma", "matches", "peak", "shown", "established", "last_played_at"]
    )


def _change_values(match_id: int, game: str, change: ledger.Change, at: datetime, voided: bool) -> tuple:
    """One ``RatingChange`` row, in ``CHANGE_COLUMNS``' order: the live update and the rebuild write
    the same columns from the same change."""
    c = change
    return (
        match_id, c.user_id, game, c.seat, c.place, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after,
        c.before, c.after, c.change, c.established, c.left, voided, at,
    )  # fmt: skip


@transaction.atomic(durable=True)
def match_rate(*, match_id: int) -> bool:
    """Move the ratings of a decided match's people (``rated_seats`` says whether it moves any). True
    when it did now; False when it moves none or was rated before."""
    match = Match.objects.select_related("table").filter(pk=match_id).first()
    if match is None or RatedMatch.objects.filter(match_id=match_id).exists():
        return False
    rated = rated_seats(match, first_holders([match_id]).get(match_id, {}))
    if rated is None:
        return False
    rows = _locked_entries(list(rated.people.values()), rated.game)
    at = _rated_now()
    try:
        with transaction.atomic():
            RatedMatch.objects.create(match_id=match_id, game=rated.game, rated_at=at)
    except IntegrityError:  # rated a moment ago by a second delivery of the same news
        return False
    entries = {user_id: _entry(row) for user_id, row in rows.items()}
    changes = ledger.apply(entries, rated.people, rated.standing, at=rated.finished_at)
    _store(rows, entries)
    _insert(
        RatingChange, CHANGE_COLUMNS, [_change_values(match_id, rated.game, c, at, False) for c in changes]
    )
    return True


def match_decided(sender, *, match_id: int, **kwargs) -> None:
    """``gameplay.signals.match_finished``'s receiver (connected in ``apps``): rate the match now, in
    the process that decided it, before the table's news goes out. Should this fail (or the process
    die first), ``catch_up`` rates it within a minute."""
    try:
        match_rate(match_id=match_id)
    except Exception:
        logger.exception("Match %s: the ratings were not updated; the catch-up will.", match_id)


def _voidable(match_id: int) -> RatedMatch:
    rated = RatedMatch.objects.select_for_update().filter(match_id=match_id).first()
    if rated is None:
        raise RatingError(_("This match moved no rating, so there is nothing to void."))
    if rated.voided_at is not None:
        raise RatingError(_("This match's rating was voided already."))
    return rated


@transaction.atomic(durable=True)
def match_void(*, match_id: int, by, reason: str) -> RatedMatch:
    """A moderator voids a match's rating (cheating, collusion): every change it made is reversed on
    its people's ratings as they are now, and who did it and why is kept. Never by someone who played
    in it, superusers included: undoing a match one lost is the same conflict whoever holds the right."""
    reason = reason.strip()
    if not reason:
        raise RatingError(_("Say why the match's rating is voided."))
    rated = _voidable(match_id)
    if Participant.objects.filter(match_id=match_id, user_id=by.pk).exists():
        raise RatingError(moderators.own_case_refusal())
    changes = list(RatingChange.objects.filter(match_id=match_id, voided=False))
    rows = _locked_entries([change.user_id for change in changes], rated.game)
    RatingChange.objects.filter(match_id=match_id).update(voided=True)
    standing_afters = _standing_afters([change.user_id for change in changes], rated.game)
    entries = {user_id: _entry(row) for user_id, row in rows.items()}
    for change in changes:
        ledger.reverse(entries[change.user_id], _ledger_change(change), standing_afters[change.user_id])
    _store(rows, entries)
    rated.voided_at, rated.voided_by, rated.void_reason = _rated_now(), by, reason[:300]
    rated.save(update_fields=["voided_at", "voided_by", "void_reason"])
    return rated


def _standing_afters(user_ids: list[int], game: str) -> dict[int, list[int]]:
    """Each person's highest rating after a change that still stands (as a one-item list, or empty)."""
    highest = dict(
        RatingChange.objects.filter(user_id__in=user_ids, game=game, voided=False)
        .values("user_id")
        .annotate(top=Max("after"))
        .values_list("user_id", "top")
    )
    return {user_id: [highest[user_id]] if user_id in highest else [] for user_id in user_ids}


def _ledger_change(row: RatingChange) -> ledger.Change:
    return ledger.Change(
        user_id=row.user_id,
        seat=row.seat,
        place=row.place,
        left=row.left,
        mu_before=row.mu_before,
        sigma_before=row.sigma_before,
        mu_after=row.mu_after,
        sigma_after=row.sigma_after,
        established=row.established,
    )


def catch_up() -> int:
    """Rate the recently decided matches whose update was missed (the process that decided one died
    before rating it); how many it rated. Run by Celery beat."""
    since = timezone.now() - CATCH_UP_WITHIN
    missed = Match.objects.filter(
        status=Match.Status.FINISHED,
        practice=False,
        table__is_rated=True,
        finished_at__gte=since,
        rating__isnull=True,
    )
    # A seat a bot started never moves a rating: such matches are not looked at again every minute.
    missed = missed.exclude(bot_started()).order_by("finished_at", "pk")
    return sum(match_rate(match_id=match_id) for match_id in missed.values_list("pk", flat=True))


# --- Rebuilding every rating from the matches ------------------------------------------------------


REBUILD_BATCH = 5000
"""Rows per round trip reading the matches back; ids per statement deleting (PostgreSQL takes at most
65,535 parameters a statement)."""


@dataclass(frozen=True)
class Rebuilt:
    matches: int
    voided: int
    people: int
    newly_rated: int


def _timeline(eligible: list[RatedSeats], kept: dict[int, tuple]) -> list[tuple[datetime, int, int]]:
    """(when, 0 to rate or 1 to void, match id), in the order the live updates made them: a match
    rated live at its ``rated_at``, one never rated at its finish, a void at its ``voided_at``."""
    steps = []
    for rated in eligible:
        rated_at, voided_at = kept.get(rated.match_id, (None, None))
        steps.append((rated_at or rated.finished_at, 0, rated.match_id))
        if voided_at is not None:
            steps.append((voided_at, 1, rated.match_id))
    return sorted(steps)


def _eligible_matches() -> list[RatedSeats]:
    """Every match that moves the ratings, read as plain values in two queries whatever their number
    (no list of ids: PostgreSQL takes at most 65,535 parameters a statement)."""
    decided = Q(status=Match.Status.FINISHED, practice=False, table__is_rated=True)
    holders: dict[int, dict[int, int | None]] = defaultdict(dict)
    rows = (
        Participant.objects.filter(from_move=0, match__in=Match.objects.filter(decided))
        .order_by("-pk")  # a seat's first row last, so it stays (``eligible.first_holders``)
        .values_list("match_id", "seat", "user_id")
    )
    for match_id, seat, user_id in rows.iterator(chunk_size=REBUILD_BATCH):
        holders[match_id][seat] = user_id
    matches = Match.objects.filter(decided).values_list("pk", "game", "options", "result", "finished_at")
    eligible = (
        decided_seats(match_id, game, options, result, finished_at, holders.get(match_id, {}))
        for match_id, game, options, result, finished_at in matches.iterator(chunk_size=REBUILD_BATCH)
    )
    return [rated for rated in eligible if rated is not None]


def _replayed(eligible: list[RatedSeats], kept: dict[int, tuple]):
    """Every rating and every match's changes, worked out in memory along the timeline."""
    by_id = {rated.match_id: rated for rated in eligible}
    entries: dict[tuple[int, str], ledger.Entry] = defaultdict(ledger.Entry)
    afters: dict[tuple[int, str], dict[int, int]] = defaultdict(dict)
    made: dict[int, list[ledger.Change]] = {}
    voided = 0
    for _when, step, match_id in _timeline(eligible, kept):
        rated = by_id[match_id]
        if step == 0:
            mine = {user_id: entries[(user_id, rated.game)] for user_id in rated.people.values()}
            made[match_id] = ledger.apply(mine, rated.people, rated.standing, at=rated.finished_at)
            for change in made[match_id]:
                afters[(change.user_id, rated.game)][match_id] = change.after
        else:
            voided += 1
            for change in made[match_id]:
                key = (change.user_id, rated.game)
                afters[key].pop(match_id)
                top = list(afters[key].values())
                ledger.reverse(entries[key], change, [max(top)] if top else [])
    return entries, made, voided


RATING_COLUMNS = [
    "user_id",
    "game",
    "mu",
    "sigma",
    "shown",
    "peak",
    "matches",
    "established",
    "last_played_at",
]
CHANGE_COLUMNS = [
    "match_id", "user_id", "game", "seat", "place", "mu_before", "sigma_before", "mu_after", "sigma_after",
    "before", "after", "change", "established", "left", "voided", "at",
]  # fmt: skip


@transaction.atomic(durable=True)
def ratings_rebuild() -> Rebuilt:
    """Recompute every rating from the rated matches, in the order the live updates made them (voids
    included where they came), and write them anew; matches decided before rated play began are rated
    too (at their finish). Live updates wait meanwhile: the ratings' tables are locked."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            tables = ", ".join(model._meta.db_table for model in (RatedMatch, Rating, RatingChange))
            cursor.execute(f"LOCK TABLE {tables} IN EXCLUSIVE MODE")
    eligible = _eligible_matches()
    kept = {
        match_id: (rated_at, voided_at)
        for match_id, rated_at, voided_at in RatedMatch.objects.values_list(
            "match_id", "rated_at", "voided_at"
        )
    }
    entries, made, voided = _replayed(eligible, kept)
    by_id = {rated.match_id: rated for rated in eligible}
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    stale = sorted(set(kept) - set(by_id))  # no longer rated (a table made casual since): forgotten
    for start in range(0, len(stale), REBUILD_BATCH):
        RatedMatch.objects.filter(match_id__in=stale[start : start + REBUILD_BATCH]).delete()
    _insert(
        Rating,
        RATING_COLUMNS,
        (
            (user_id, game, e.mu, e.sigma, e.shown, e.peak, e.matches, e.established, e.last_played_at)
            for (user_id, game), e in entries.items()
        ),
    )
    newly = [
        (match_id, by_id[match_id].game, by_id[match_id].finished_at, "")
        for match_id in made
        if match_id not in kept
    ]
    _insert(RatedMatch, ["match_id", "game", "rated_at", "void_reason"], newly)
    _insert(RatingChange, CHANGE_COLUMNS, _change_tuples(by_id, made, kept))
    return Rebuilt(
        matches=len(made),
        voided=voided,
        people=len({user for user, _game in entries}),
        newly_rated=len(newly),
    )


def _change_tuples(
    by_id: dict[int, RatedSeats], made: dict[int, list[ledger.Change]], kept: dict[int, tuple]
):
    for match_id, changes in made.items():
        rated_at, voided_at = kept.get(match_id, (None, None))
        at, game = rated_at or by_id[match_id].finished_at, by_id[match_id].game
        for change in changes:
            yield _change_values(match_id, game, change, at, voided_at is not None)


def _insert(model: type[Model], columns: list[str], rows: Iterable[tuple]) -> None:
    """Write rows of ``columns`` in one statement (the rebuild's are hundreds of thousands of rating
    changes): by COPY on PostgreSQL (no parameters bound, no model built per row), by ``bulk_create``
    elsewhere."""
    if connection.vendor != "postgresql":
        model.objects.bulk_create(
            (model(**dict(zip(columns, row, strict=True))) for row in rows), batch_size=REBUILD_BATCH
        )
        return
    names = ", ".join(
        connection.ops.quote_name(model._meta.get_field(c.removesuffix("_id")).column) for c in columns
    )
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
