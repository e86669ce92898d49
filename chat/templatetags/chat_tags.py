"""The chat drawer on a table's pages (the table and its waiting room)."""

from django import template

from .. import selectors
from ..models import Report
from ..phrases import PHRASES

register = template.Library()


def drawer_context(
    *, table, user, csrf_token="", hidden: frozenset[int] | None = None, logs=True, composer=True
) -> dict:
    """What ``chat/_chat.html`` renders from, for a page or a socket's update (which knows whom its
    reader does not see, and may want only the lines or only the message box)."""
    return {
        "chat": selectors.drawer(table=table, user=user, hidden=hidden, logs=logs, composer=composer),
        "phrases": PHRASES,
        "reasons": Report.Reason.choices,
        "csrf_token": csrf_token,
    }


@register.inclusion_tag("chat/_chat.html", takes_context=True)
def table_chat(context, table) -> dict:
    return drawer_context(table=table, user=context["user"], csrf_token=context.get("csrf_token", ""))
