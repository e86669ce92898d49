from functools import lru_cache

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from gameplay import frames
from gameplay.cardfaces import CardFace, face
from gameplay.engine.cards import CODES
from gameplay.frames import MARKUP
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


@register.simple_tag
def hand_cards(hand: list, my_turn: bool) -> SafeString:
    """The hand's cards, each kept for its look (``gameplay.frames.hand_cards``)."""
    return SafeString(frames.hand_cards(render_to_string, hand, my_turn, get_language()))


@register.simple_tag
def memo(template_name: str, **values) -> SafeString:
    """``template_name`` rendered with ``values`` only, once per distinct content and language
    (``gameplay.frames.MarkupMemo``): the template must read nothing else."""
    return MARKUP.render(render_to_string, template_name, values, get_language())
