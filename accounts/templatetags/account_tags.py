"""How an account shows beside its name on every page: a bot account is marked as one."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

register = template.Library()


@register.simple_tag
def bot_badge(who) -> SafeString | str:
    """The "BOT" badge after a bot account's name; nothing for a person. ``who``: the account, or
    whether it is a bot account (for a name read from elsewhere, a seat of a screen, a match's row)."""
    marked = who if isinstance(who, bool) else bool(getattr(who, "is_bot_account", False))
    if not marked:
        return ""
    return format_html(
        ' <span class="badge badge-bot" data-testid="bot-account-badge" title="{}">{}</span>',
        gettext("A bot account: a program plays through the API"),
        gettext("BOT"),
    )
