from django import template

register = template.Library()


@register.filter
def free_seat_count(table) -> int:
    return sum(1 for seat in table.seats.all() if seat.is_free)
