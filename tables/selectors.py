"""Reads for the lobby and the table pages."""

from django.db.models import Count, Prefetch, Q, QuerySet

from .models import Seat, Table


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


def tables_of(*, user) -> QuerySet[Table]:
    """The tables this player sits at that are not over yet."""
    return _with_seats(
        Table.objects.filter(seats__user=user, status__in=[Table.Status.WAITING, Table.Status.PLAYING])
    ).order_by("-created_at")


def table_detail(*, table_id: int) -> Table | None:
    return _with_seats(Table.objects.filter(pk=table_id)).first()


def seat_of(*, table: Table, user) -> Seat | None:
    if not user.is_authenticated:
        return None
    return next((seat for seat in table.seats.all() if seat.user_id == user.pk), None)


def may_watch(*, table: Table, user) -> bool:
    """A private table shows only to the people sitting there (and to staff)."""
    return not table.is_private or user.is_staff or seat_of(table=table, user=user) is not None
