from django import template

from ..plot import plot

register = template.Library()


@register.simple_tag
def rating_plot(points, start: int = 1500):
    """The drawing of a rating's history (``selectors.Point`` list, oldest first), or None."""
    return plot([point.rating for point in points], start)


@register.filter
def signed(change: int) -> str:
    """A change as it reads: "+12", "−7" (a true minus sign), "±0"."""
    if change > 0:
        return f"+{change}"
    if change < 0:
        return f"\N{MINUS SIGN}{-change}"
    return "\N{PLUS-MINUS SIGN}0"
