"""Refusals and card names in the player's language.

The engine refuses in English with a marked template and typed params (``IllegalAction``) because
it cannot import Django; this module says the same in the active language. A refusal travels as
``(template, params_to_json(params))`` from ``services`` to the consumer, which renders it with
``explain(template, params_from_json(data))`` inside ``translation.override(player_language)``.
``card_name`` and ``suit_name`` are the same words for labels (screen readers, the suit picker).
"""

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, gettext_noop

from gameplay.engine.cards import CODES
from gameplay.engine.core import SUIT_NAMES, CardRef, OneOf, Param, SuitRef, card_phrase, render_reason

# A card's name standing alone, as it is said aloud (the engine's sentences use "the 9 of hearts").
_CARD_NAMES = {
    "XR": gettext_noop("red joker"),
    "XB": gettext_noop("black joker"),
    "2": gettext_noop("two of %(suit)s"),
    "3": gettext_noop("three of %(suit)s"),
    "4": gettext_noop("four of %(suit)s"),
    "5": gettext_noop("five of %(suit)s"),
    "6": gettext_noop("six of %(suit)s"),
    "7": gettext_noop("seven of %(suit)s"),
    "8": gettext_noop("eight of %(suit)s"),
    "9": gettext_noop("nine of %(suit)s"),
    "10": gettext_noop("ten of %(suit)s"),
    "J": gettext_noop("jack of %(suit)s"),
    "Q": gettext_noop("queen of %(suit)s"),
    "K": gettext_noop("king of %(suit)s"),
    "A": gettext_noop("ace of %(suit)s"),
}


def explain(template: str, params: Mapping[str, Param]) -> str:
    """The refusal ``template`` with its ``params``, in the active language."""
    return render_reason(template, params, gettext)


def card_name(code: str) -> str:
    """A card's spoken name in the active language: "seven of hearts", "asul de treflă", "red joker"."""
    return card_phrase(code, _CARD_NAMES, gettext)


def suit_name(code: str) -> str:
    """A suit's name (S H D C) in the active language: "hearts", "inimă roșie"."""
    return gettext(SUIT_NAMES[code])


def params_to_json(params: Mapping[str, Param]) -> dict[str, Any]:
    """``params`` as JSON (references tagged: ``{"card": "9H"}``, ``{"suit": "S"}``, ``{"one_of": [...]}``),
    so a refusal can cross the channel layer and be rendered in each reader's language."""
    return {name: _param_to_json(value) for name, value in params.items()}


def params_from_json(data: Mapping[str, Any]) -> dict[str, Param]:
    """The params ``params_to_json`` wrote; ``ValueError`` on anything it could not have written."""
    return {name: _param_from_json(value) for name, value in data.items()}


def _param_to_json(value: Param) -> Any:
    if isinstance(value, CardRef):
        return {"card": value.code}
    if isinstance(value, SuitRef):
        return {"suit": value.code}
    if isinstance(value, OneOf):
        return {"one_of": list(value.phrases)}
    return value


def _param_from_json(value: Any) -> Param:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, dict) and len(value) == 1:
        [(tag, inner)] = value.items()
        if tag == "card" and inner in CODES:
            return CardRef(inner)
        if tag == "suit" and isinstance(inner, str) and inner in SUIT_NAMES:
            return SuitRef(inner)
        if tag == "one_of" and isinstance(inner, list) and inner and all(isinstance(p, str) for p in inner):
            return OneOf(tuple(inner))
    raise ValueError(f"Not a refusal parameter: {value!r}.")
