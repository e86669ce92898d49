"""Reads for the lobby and the table pages."""

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, QuerySet

from .models import Seat, Table
from .rated import casual_reason
from .signals import seat_notes


def _with_seats(tables: QuerySet[Table]) -> QuerySet[Table]:
    return tables.select_related("host").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("user", "reserved_for").order_by("position"))
    )


def open_tables(*, game: str | None = None) -> QuerySet[Table]:
    """Public tables waiting for players, newest first, with their free seat count."""
    tables = Table.objects.filter(status=Table.Status.WAITING, is_private=False)
    if game:
        tables = tables.filter(game=game)
    return (
        _with_seats(tables)
        .annotate(free_seats=Count("seats", filter=Q(seats__user__isnull=True, seats__bot_level="")))
        .order_by("-created_at")
    )


def with_seat_notes(tables) -> list[Table]:
    """The tables as a list, each seated person's seat carrying ``note``: what the apps above have
    to say beside their name (``signals.seat_notes``), asked once for the whole list."""
    tables = list(tables)
    notes: dict[tuple[int, int], str] = {}
    if tables:
        for _receiver, answer in seat_notes.send(sender=Table, tables=tables):
            notes.update(answer or {})
    for table in tables:
        for seat in table.seats.all():
            seat.note = notes.get((table.pk, seat.user_id), "") if seat.user_id else ""
    return tables


def tables_of(*, user) -> QuerySet[Table]:
    """The tables this player sits at that are not over yet."""
    return _with_seats(Table.objects.filter(seats__user=user, status__in=Table.NOT_OVER)).order_by(
        "-created_at"
    )


def seats_offered_to(*, user) -> QuerySet[Table]:
    """The tables still waiting that keep a seat for ``user`` (a host's offer to a bot account, a
    rematch), oldest first: what a bot account may take (``services.seat_take``) or decline."""
    return _with_seats(Table.objects.filter(seats__reserved_for=user, status=Table.Status.WAITING)).order_by(
        "created_at"
    )


def table_detail(*, table_id: int) -> Table | None:
    return _with_seats(Table.objects.filter(pk=table_id)).first()


def seat_of(*, table: Table, user) -> Seat | None:
    if not user.is_authenticated:
        return None
    return next((seat for seat in table.seats.all() if seat.user_id == user.pk), None)


def may_watch(*, table: Table, user) -> bool:
    """A private table shows only to the people sitting there (and to staff)."""
    return not table.is_private or user.is_staff or seat_of(table=table, user=user) is not None


@dataclass(frozen=True)
class SeatChoices:
    """One seat of a table and what the viewer may do with it before the match (the services check again)."""

    seat: Seat
    sit: bool
    add_bot: bool
    remove_bot: bool
    remove_player: bool


def seat_choices(*, table: Table, user) -> list[SeatChoices]:
    """Each seat with the buttons the viewer gets: anyone seatless may sit at a free seat not kept for
    someone else; the host adds and removes bots and removes other players while the table waits."""
    waiting = table.status == Table.Status.WAITING and user.is_authenticated
    seatless = seat_of(table=table, user=user) is None
    hosting = waiting and table.host_id == user.pk
    return [
        SeatChoices(
            seat=seat,
            sit=waiting and seatless and seat.is_free and seat.reserved_for_id in (None, user.pk),
            add_bot=hosting and seat.is_free,
            remove_bot=hosting and seat.is_bot,
            remove_player=hosting
            and not seat.is_bot
            and (seat.user_id not in (None, user.pk) or seat.reserved_for_id is not None),
        )
        for seat in table.seats.all()
    ]


def casual_if_seated(*, table: Table, user) -> str:
    """Why the waiting rated ``table`` would turn casual were ``user`` (not seated there) to sit down
    (a ``Casual`` value: a new account, or too many rated matches with someone seated today); ""
    when it would stay rated, or it is casual already, or they cannot sit. The waiting room says it
    before they sit, since the seat that fills the table starts its match."""
    if not (user.is_authenticated and table.is_rated and table.status == Table.Status.WAITING):
        return ""
    seats = list(table.seats.all())
    if any(seat.user_id == user.pk for seat in seats) or not any(seat.is_free for seat in seats):
        return ""
    return casual_reason(table, seats, joining=user)
