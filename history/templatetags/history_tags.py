"""How the history pages say a match's length."""

from datetime import datetime

from django import template
from django.utils.timesince import timesince
from django.utils.translation import gettext as _

register = template.Library()


@register.filter
def match_duration(started: datetime, finished: datetime | None) -> str:
    """How long a match lasted ("12 minutes", "1 hour, 5 minutes"); within the minute, "under a
    minute" rather than "0 minutes"."""
    if finished is None:
        return ""
    if (finished - started).total_seconds() < 60:
        return _("under a minute")
    return timesince(started, finished)
