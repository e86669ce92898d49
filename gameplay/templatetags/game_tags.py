from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.translation import gettext as _

from gameplay import durations, selectors
from gameplay.games import presenter

register = template.Library()


@register.simple_tag
def table_summary(table) -> list[str]:
    """The table's options as short phrases a player reads at a glance: the game's, then the clock."""
    labels = presenter(table.game).option_labels(table.options)
    if table.is_own_pace:
        labels.append(table.get_pace_hours_display())
    else:
        labels.append(_("%d s clock") % table.turn_clock if table.turn_clock else _("no clock"))
    labels.append(_("rated") if table.is_rated else _("casual"))
    if table.fast_bots:
        labels.append(_("fast bots"))
    return labels


@register.filter
def time_left(deadline: datetime | None) -> str:
    """How long is left before ``deadline`` at own pace: "1 day 3 hours left" ("" without one)."""
    return durations.time_left_words(deadline - timezone.now()) if deadline else ""


@register.inclusion_tag("gameplay/_turns_link.html", takes_context=True)
def turns_link(context) -> dict:
    """The top bar's "Your turn" link with how many matches at own pace wait for the person's move:
    one COUNT, for people logged in only (the site socket keeps it current)."""
    user = context.get("user")
    signed_in = user is not None and user.is_authenticated
    return {"signed_in": signed_in, "count": selectors.pace_turns_count(user.pk) if signed_in else 0}
