from django import template
from django.utils.translation import gettext as _

from gameplay.games import presenter

register = template.Library()


@register.simple_tag
def table_summary(table) -> list[str]:
    """The table's options as short phrases a player reads at a glance: the game's, then the clock."""
    labels = presenter(table.game).option_labels(table.options)
    labels.append(_("%d s clock") % table.turn_clock if table.turn_clock else _("no clock"))
    labels.append(_("rated") if table.is_rated else _("casual"))
    if table.fast_bots:
        labels.append(_("fast bots"))
    return labels
