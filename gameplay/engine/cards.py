"""Cards as small integers with stable text codes.

A card is ``rank_index * 4 + suit_index`` for the 52 ordinary cards (ranks 2..A,
suits S H D C) and 52 / 53 for the red and black jokers. Integers keep the hot
path cheap; the codes (``10H``, ``7S``, ``AD``, ``XR``, ``XB``) are what crosses
JSON, the scenario runner and the screen.
"""

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")

RANK_INDEX = {rank: index for index, rank in enumerate(RANKS)}
SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}

RED_JOKER = 52
BLACK_JOKER = 53
JOKERS = (RED_JOKER, BLACK_JOKER)

CODES: tuple[str, ...] = (*(rank + suit for rank in RANKS for suit in SUITS), "XR", "XB")
CARD_BY_CODE = {code: card for card, code in enumerate(CODES)}

# Rank indices of the cards both games give a meaning to.
TWO, SEVEN, TEN, JACK, QUEEN, KING, ACE = (RANK_INDEX[r] for r in ("2", "7", "10", "J", "Q", "K", "A"))


def card(code: str) -> int:
    """The card for a code; ``ValueError`` naming the code when there is none."""
    try:
        return CARD_BY_CODE[code]
    except (KeyError, TypeError):
        raise ValueError(f"{code!r} is not a card code (e.g. 10H, 7S, AD, XR).") from None


def code(card: int) -> str:
    return CODES[card]


def rank(card: int) -> int:
    """Rank index (0 = two ... 12 = ace); jokers have no rank and give -1."""
    return card >> 2 if card < RED_JOKER else -1


def suit(card: int) -> int:
    """Suit index (0..3 for S H D C); jokers have no suit and give -1."""
    return card & 3 if card < RED_JOKER else -1


def is_joker(card: int) -> bool:
    return card >= RED_JOKER


def full_deck(*, jokers: bool = False) -> list[int]:
    """The 52-card pack in a fixed order, with the two jokers when asked."""
    return list(range(54 if jokers else 52))


def codes(cards) -> list[str]:
    return [CODES[c] for c in cards]


def parse_codes(items) -> list[int]:
    """Cards for a list of codes; ``ValueError`` on anything that is not a list of codes."""
    if not isinstance(items, list):
        raise ValueError(f"Expected a list of card codes, got {items!r}.")
    return [card(item) for item in items]
