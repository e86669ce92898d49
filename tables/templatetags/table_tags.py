from django import template

from tables.models import casual_words as words_of_reason

register = template.Library()


@register.filter
def free_seat_count(table) -> int:
    return sum(1 for seat in table.seats.all() if seat.is_free)


@register.filter
def casual_words(reason: str) -> str:
    """Why a table is casual, as a player reads it (``Table.casual_because``)."""
    return words_of_reason(reason)
