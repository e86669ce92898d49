"""How an account shows beside its name on every page: a bot account is marked as one."""

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

register = template.Library()
BADGE = "includes/bot_badge.html"
"""The badge's markup, which the practice table's seats (rendered in the browser, with no tag
libraries but its own) include as it is."""


@register.simple_tag
def bot_badge(who) -> SafeString | str:
    """The "BOT" badge after a bot account's name; nothing for a person. ``who``: the account, or
    whether it is a bot account (for a name read from elsewhere, a seat of a screen, a match's row)."""
    marked = who if isinstance(who, bool) else bool(getattr(who, "is_bot_account", False))
    if not marked:
        return ""
    return render_to_string(BADGE)
