"""Time at a table at its own pace, in the words a person reads ("1 day 3 hours left"): in days, hours
and minutes, each an hour of ``OWN_PACE_HOUR_SECONDS`` (shortened when such a match is tried out, so a
"day" reads as one there too). One helper, so the "Your turn" page and the table say it alike."""

from datetime import timedelta

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

UNITS = (
    (24 * 60, lambda n: ngettext("%(count)d day", "%(count)d days", n)),
    (60, lambda n: ngettext("%(count)d hour", "%(count)d hours", n)),
    (1, lambda n: ngettext("%(count)d minute", "%(count)d minutes", n)),
)
"""Each unit's length in minutes and its words, the largest first."""


def duration_words(span: timedelta) -> str:
    """``span`` in its two largest units ("1 day 3 hours", "2 hours", "40 minutes"), rounded down; under
    a minute, "less than a minute"."""
    minutes = int(span.total_seconds() * 60 // settings.OWN_PACE_HOUR_SECONDS)
    counts = []
    for length, words in UNITS:
        count, minutes = divmod(minutes, length)
        counts.append((count, words))
    largest = next((index for index, (count, _words) in enumerate(counts) if count), len(counts))
    parts = [words(count) % {"count": count} for count, words in counts[largest : largest + 2] if count]
    return " ".join(parts) or _("less than a minute")


def time_left_words(span: timedelta) -> str:
    """How long is left before a deadline ``span`` away: "1 day 3 hours left"; "no time left" once it
    passed."""
    if span.total_seconds() <= 0:
        return _("no time left")
    return _("%(time)s left") % {"time": duration_words(span)}
