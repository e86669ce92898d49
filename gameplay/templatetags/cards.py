import threading
from collections import OrderedDict
from functools import lru_cache

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from gameplay.cardfaces import CardFace, face
from gameplay.engine.cards import CODES
from gameplay.games.words import card_name, suit_name

register = template.Library()


@register.filter
def card_face(code: str) -> CardFace:
    return face(code)


@register.filter
def spoken(code: str) -> str:
    """The card's name as a screen reader should say it, in the page's language."""
    return card_name(code)


@register.filter
def spoken_suit(code: str | None) -> str:
    return suit_name(code) if code else ""


@register.simple_tag
def card(code: str) -> SafeString:
    """A card's face (``gameplay/_card.html``). Every hand on every update shows cards, and a card
    looks the same each time in a given language, so each is rendered once per language."""
    return _card_markup(code, get_language())


@lru_cache(maxsize=len(CODES) * 4)
def _card_markup(code: str, language: str) -> SafeString:
    return render_to_string("gameplay/_card.html", {"code": code})


class MarkupMemo:
    """Markup already rendered, by template, language and the ``repr`` of each value it was given.

    A table's update renders every viewer's opponents, hand and score sheet, yet from one move to
    the next most of those pieces are the same for every viewer: the seat that did not move, the
    cards still in hand, the sheet until a round ends. The pieces' templates read only the values
    passed to them (and the language), and those values are plain dataclasses, strings and numbers
    whose ``repr`` says everything they hold, so equal reprs mean equal markup."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[str, ...], SafeString] = OrderedDict()
        self.lock = threading.Lock()

    def render(self, template_name: str, values: dict) -> SafeString:
        key = (template_name, get_language(), *(f"{name}={value!r}" for name, value in values.items()))
        with self.lock:
            html = self.entries.get(key)
            if html is not None:
                self.entries.move_to_end(key)
                return html
        html = render_to_string(template_name, values)
        with self.lock:
            self.entries[key] = html
            if len(self.entries) > self.size:
                self.entries.popitem(last=False)
        return html


MARKUP = MarkupMemo(size=2048)
"""A few megabytes at most: an entry (its key and markup) is about a kilobyte for a tile or a hand,
up to ten for a long score sheet, of which a process holds few."""


@register.simple_tag
def memo(template_name: str, **values) -> SafeString:
    """``template_name`` rendered with ``values`` only, once per distinct content and language
    (``MarkupMemo``): the template must read nothing else."""
    return MARKUP.render(template_name, values)
