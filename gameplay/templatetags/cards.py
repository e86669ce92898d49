from django import template

from gameplay.cardfaces import CardFace, face
from gameplay.reasons import card_name, suit_name

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
