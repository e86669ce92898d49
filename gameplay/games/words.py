"""The presenters' words in the reader's language, without importing Django.

The presenters run on the server and, for offline practice, in the browser, so they import only the
engine and the standard library. The site installs Django's translation functions here when it starts
(``gameplay.apps``); until something is installed, the English is said as written.
"""

from collections.abc import Callable, Mapping

from gameplay.engine.core import SUIT_NAMES, Param, card_phrase, gettext_noop, render_reason

__all__ = ["card_name", "explain", "gettext", "gettext_noop", "install", "ngettext", "suit_name"]

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def _english_plural(singular: str, plural: str, number: int) -> str:
    return singular if number == 1 else plural


_translation: tuple[Gettext, Ngettext] = (gettext_noop, _english_plural)


def install(translate: Gettext, translate_plural: Ngettext) -> None:
    """Say every presenter's words through ``translate`` and ``translate_plural`` from now on."""
    global _translation
    _translation = (translate, translate_plural)


def gettext(message: str) -> str:
    return _translation[0](message)


def ngettext(singular: str, plural: str, number: int) -> str:
    return _translation[1](singular, plural, number)


# A card's name standing alone ("9 of hearts"); a sentence puts "the" before it, as the engine's
# refusals say "the 9 of hearts".
_CARD_NAMES = {
    "XR": gettext_noop("red joker"),
    "XB": gettext_noop("black joker"),
    "2": gettext_noop("2 of %(suit)s"),
    "3": gettext_noop("3 of %(suit)s"),
    "4": gettext_noop("4 of %(suit)s"),
    "5": gettext_noop("5 of %(suit)s"),
    "6": gettext_noop("6 of %(suit)s"),
    "7": gettext_noop("7 of %(suit)s"),
    "8": gettext_noop("8 of %(suit)s"),
    "9": gettext_noop("9 of %(suit)s"),
    "10": gettext_noop("10 of %(suit)s"),
    "J": gettext_noop("jack of %(suit)s"),
    "Q": gettext_noop("queen of %(suit)s"),
    "K": gettext_noop("king of %(suit)s"),
    "A": gettext_noop("ace of %(suit)s"),
}


def card_name(code: str) -> str:
    """A card's spoken name in the reader's language: "7 of hearts", "asul de treflă", "red joker"."""
    return card_phrase(code, _CARD_NAMES, gettext)


def suit_name(code: str) -> str:
    """A suit's name (S H D C) in the reader's language: "hearts", "inimă roșie"."""
    return gettext(SUIT_NAMES[code])


def explain(template: str, params: Mapping[str, Param]) -> str:
    """An engine's refusal (``IllegalAction.template`` and ``params``) in the reader's language."""
    return render_reason(template, params, gettext)
