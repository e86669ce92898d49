"""The quick phrases: sent as their key and shown in each reader's own language."""

from django.utils.translation import gettext_lazy as _

PHRASES = {
    "hello": _("Hello!"),
    "luck": _("Good luck!"),
    "nice": _("Well played!"),
    "thanks": _("Thank you!"),
    "sorry": _("Sorry!"),
    "oops": _("Oops, my mistake."),
    "brb": _("Sorry, back in a moment."),
    "again": _("Another match?"),
    "gg": _("Good game!"),
    "bye": _("Bye, see you!"),
}
"""Keys as the socket and the database carry them; the order is the order of the buttons."""


def phrase_text(key: str) -> str:
    """The phrase in the active language (a key no longer on the list reads as nothing)."""
    return str(PHRASES.get(key, ""))
