"""How a card code looks on the table: index, suit symbol, colour."""

from dataclasses import dataclass

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = {"H", "D"}


@dataclass(frozen=True)
class CardFace:
    code: str
    rank: str
    suit: str
    symbol: str
    colour: str
    """"red", "black", or for the four-colour deck's sake the suit itself via ``suit``."""
    is_joker: bool


def face(code: str) -> CardFace:
    if code in ("XR", "XB"):
        return CardFace(code, "★", "", "🃏", "red" if code == "XR" else "black", True)
    rank, suit = code[:-1], code[-1]
    return CardFace(code, rank, suit, SUIT_SYMBOLS[suit], "red" if suit in RED_SUITS else "black", False)
