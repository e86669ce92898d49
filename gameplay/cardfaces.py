"""How a card code looks on the table: its index, the suit symbol it is drawn with, its colour.

The drawings themselves are SVG symbols defined once per page (``gameplay/_card_sprite.html``);
a card refers to them by ``symbol`` so a fragment carries a few bytes per card, not a picture.
"""

from dataclasses import dataclass

RED_SUITS = {"H", "D"}
JOKERS = {"XR": "red", "XB": "black"}


@dataclass(frozen=True)
class CardFace:
    code: str
    rank: str
    suit: str
    """S, H, D or C; "" for a joker, which has no suit (the four-colour deck colours by suit)."""
    symbol: str
    """The sprite symbol the card is drawn with: a suit, or the joker's star."""
    colour: str
    """"red" or "black", as on a two-colour deck."""
    is_joker: bool


def face(code: str) -> CardFace:
    if code in JOKERS:
        return CardFace(code, "", "", "joker", JOKERS[code], True)
    rank, suit = code[:-1], code[-1]
    return CardFace(code, rank, suit, suit, "red" if suit in RED_SUITS else "black", False)
