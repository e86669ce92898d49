from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

register = template.Library()

CLASSIC_MATCH = {
    "points8": lambda: _("points to 8"),
    "points21": lambda: _("points to 21"),
    "games1": lambda: _("first to 1 game"),
    "games2": lambda: _("first to 2 games"),
    "games3": lambda: _("first to 3 games"),
}


@register.simple_tag
def table_summary(table) -> list[str]:
    """The table's options as short phrases a player reads at a glance."""
    options = table.options
    players = options["players"]
    if table.game == "classic":
        parts = [
            _("2 v 2 in teams") if players == 4 else ngettext("%d player", "%d players", players) % players
        ]
        parts.append(CLASSIC_MATCH[options["match"]]())
        parts.append(_("winner leads") if options["lead"] == "winner" else _("lead rotates"))
    else:
        parts = [ngettext("%d player", "%d players", players) % players, _("target %d") % options["target"]]
        if options.get("jokers"):
            parts.append(_("jokers"))
        if options.get("jack_draws_two"):
            parts.append(_("jack draws two"))
        if options.get("court_follows"):
            parts.append(_("court follows"))
    parts.append(_("%d s clock") % table.turn_clock if table.turn_clock else _("no clock"))
    return parts


@register.filter
def free_seat_count(table) -> int:
    return sum(1 for seat in table.seats.all() if seat.is_free)
