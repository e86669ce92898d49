"""Șeptică Americană, the shedding game of RULES.md §1, as a ``core.Game``.

One module, long on purpose: it is the game's complete rules, read top to bottom against
RULES.md §1, with the fast ``playout`` asking the rulebook's questions again beside it;
split, one rule would be scattered across files, its fast copy far from the readable one.

Hands are bit masks (bit ``c`` set when the hand holds card ``c``), so "which
cards fit" is one AND with a precomputed mask and a hand is one int to copy.
The stock is a list with its top card last (``pop()`` draws); the pile is a
list with the face-up top last.

The rulebook is two predicates, ``_playable`` (which cards may go down) and
``_other`` (which other action is open: take, sit out or draw); ``legal_actions``
lists what they allow and ``apply`` refuses what they do not (``_refusal`` says
why, in words a player can read). ``playout``, the inlined loop bots search with,
asks the same two questions on local variables and lets a chooser pick among the
answers; the tests replay every playout decision through ``apply`` and demand the
same state.

Decisions taken where RULES.md leaves room, as a Romanian table plays:
- A turn is one action: a drawn card that fits waits for the next turn.
- Every action resets the count of automatic passes. The rules name plays and
  draws; taking and sitting out only ever follow a play (count already 0), so
  this is the same rule said more simply.
- A seven must name a suit even when it is the player's last card.
- When the player's last card goes down the round ends with that card on top:
  the suit it sets is shown, but what it aimed (owed cards, a skip) is void.
- Outside an attack a card fits only by suit, rank, seven, joker or court
  follows: with "jack draws two" a two still does not go on a jack of another
  suit, nor a jack on a two (unless court follows is on).
- The cards turned and buried at the deal were seen by everyone, so the deal's
  event names them; the view never shows the stock, so it does not.
- A fixed deal (scenario runner) may give a pile of several cards and any top;
  the top is then only a card to follow (a seven there leaves its own suit in
  force). Without a dealer it follows the usual rule (seed, then one seat on).

Note on the nobody-out round: with the whole deck in play it cannot happen.
Nothing is drawable only when every card but the top is in a hand, and then the
other cards of the suit in force (there is always one, or a joker is on top and
anything fits) are in someone's hand, so that player can play and the passes
never go all the way round. The rule is still implemented as RULES.md states it
(``_start_turn``, ``_end_round``) and tested on a state with cards taken out.
"""

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from .cards import ACE, CODES, JACK, KING, QUEEN, RANKS, SEVEN, SUIT_INDEX, SUITS, TWO, parse_codes
from .core import (
    Action,
    ActionJSON,
    ActionSet,
    CardRef,
    Event,
    IllegalAction,
    OneOf,
    SuitRef,
    action_to_json,
    gettext_noop,
    sorted_action_json,
)
from .rng import Rng

NAME = "americana"
HAND_SIZE = 5
PLAYER_COUNTS = (2, 3, 4)
TARGETS = (101, 301, 501)
PLAYING, AWAITING_DEAL, OVER = "playing", "awaiting_deal", "over"

# --- Card masks --------------------------------------------------------------------------------------

RANK_MASK = tuple(0b1111 << (4 * r) for r in range(13))
SUIT_MASK = tuple(sum(1 << c for c in range(s, 52, 4)) for s in range(4))
JOKER_MASK = 0b11 << 52
_ALL = (1 << 54) - 1
TWOS, SEVENS, JACKS, ACES = (RANK_MASK[r] for r in (TWO, SEVEN, JACK, ACE))
# A round never opens on a card that does something, whatever the options.
_BURIED_AT_DEAL = SEVENS | TWOS | JACKS | ACES | JOKER_MASK
# Court follows: the rank on top -> the court rank that may go on it.
COURT = {TWO: JACK, RANKS.index("3"): QUEEN, RANKS.index("4"): KING}

_RANK_POINTS = (2, 3, 4, 5, 6, 20, 8, 9, 10, 10, 10, 10, 1)  # 2..10, J, Q, K, A; the seven is dear
POINTS = (*(_RANK_POINTS[c >> 2] for c in range(52)), 50, 50)


def fit_mask(top: int, suit: int, court: bool) -> int:
    """Mask of the cards that fit on ``top`` with ``suit`` in force (-1: none), nothing being owed."""
    if top >= 52:
        return _ALL  # the joker's five have been dealt with: anything goes
    fits = SEVENS | JOKER_MASK | RANK_MASK[top >> 2]
    if suit >= 0:
        fits |= SUIT_MASK[suit]
    if court and top >> 2 in COURT:
        fits |= RANK_MASK[COURT[top >> 2]]
    return fits


# Indexed by ``top * 5 + suit + 1``; one table per "court follows" setting.
FIT_PLAIN = tuple(fit_mask(top, suit, False) for top in range(54) for suit in range(-1, 4))
FIT_COURT = tuple(fit_mask(top, suit, True) for top in range(54) for suit in range(-1, 4))


def cards_of(mask: int) -> list[int]:
    """The cards in a mask, lowest first."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def mask_of(cards: list[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def _byte_points(first: int) -> tuple[int, ...]:
    """The points of the cards ``first`` to ``first + 7`` held, for each of the 256 bytes saying which."""
    points = [0] * 256
    for byte in range(1, 256):
        c = first + (byte & -byte).bit_length() - 1
        points[byte] = points[byte & (byte - 1)] + (POINTS[c] if c < len(POINTS) else 0)
    return tuple(points)


_BYTE_POINTS = tuple(_byte_points(8 * i) for i in range(7))
"""The points of the cards in each byte of a hand's mask, by the byte's place and value."""


def hand_value(hand: int) -> int:
    """What a hand is charged at the end of a round (every playout's end asks it of every hand: seven
    lookups rather than a walk over the cards)."""
    b0, b1, b2, b3, b4, b5, b6 = _BYTE_POINTS
    return (
        b0[hand & 255]
        + b1[hand >> 8 & 255]
        + b2[hand >> 16 & 255]
        + b3[hand >> 24 & 255]
        + b4[hand >> 32 & 255]
        + b5[hand >> 40 & 255]
        + b6[hand >> 48 & 255]
    )


# --- Options ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    """A table's options, fixed when the table is created."""

    players: int = 4
    jokers: bool = False
    jack_draws_two: bool = False
    court_follows: bool = False
    target: int = 101

    @property
    def deck_size(self) -> int:
        return 54 if self.jokers else 52

    @property
    def draw_cards(self) -> int:
        """Mask of the cards that make the next player take cards (and may answer such cards)."""
        return TWOS | (JACKS if self.jack_draws_two else 0) | (JOKER_MASK if self.jokers else 0)

    @property
    def fit_table(self) -> tuple[int, ...]:
        return FIT_COURT if self.court_follows else FIT_PLAIN


_OPTION_KEYS = ("players", "jokers", "jack_draws_two", "court_follows", "target")


# --- Actions ----------------------------------------------------------------------------------------


# ``play`` a card (a seven names a suit), ``draw``, ``take`` what is owed, ``sit_out`` an ace's skip.
ACTIONS = ActionSet(("draw", "take", "sit_out"), range(54), cards_of(SEVENS))
DRAW, TAKE, SIT_OUT = (ACTIONS.kinds[kind] for kind in ("draw", "take", "sit_out"))
_PLAY = tuple(ACTIONS.plays[c] for c in range(54))  # for a seven: one that has named no suit (never legal)
_PLAY_SEVEN = ACTIONS.named
play_action = ACTIONS.play


def _play_actions(cards: int, into: list[Action]) -> None:
    """Append the play actions for a mask of playable cards (a seven once per suit it may name)."""
    while cards:
        low = cards & -cards
        c = low.bit_length() - 1
        cards ^= low
        if low & SEVENS:
            into.extend(_PLAY_SEVEN[c])
        else:
            into.append(_PLAY[c])


# --- Choosers: who picks among the legal options in a playout ----------------------------------------

Chooser = Callable[[list[int], int, int, Action | None, random.Random], Action]
"""Picks one decision in ``Americana.playout``: called as ``chooser(hands, seat, playable, other,
rng)`` with every hand's mask (a search plays out a full position), the seat to act, the mask of
the cards it may put down (never empty) and the other action open (``TAKE`` when cards are owed,
``SIT_OUT`` under an ace's skip, ``DRAW`` on an ordinary turn, None when nothing is left to draw).
It returns ``other`` or the prebuilt play of a card in ``playable`` (``play_action``; a seven
names a suit). The playout trusts it, so a chooser may only choose; it never bends a rule."""


def nth_card(cards: int, index: int) -> int:
    """The ``index``-th lowest card of a mask."""
    for _ in range(index):
        cards &= cards - 1
    return (cards & -cards).bit_length() - 1


def _legal_count(playable: int, other: Action | None) -> int:
    """How many legal actions the options stand for (a seven is one per suit it may name)."""
    return playable.bit_count() + 3 * (playable & SEVENS).bit_count() + (other is not None)


def random_choice(
    hands: list[int], seat: int, playable: int, other: Action | None, rng: random.Random
) -> Action:
    """Uniformly one of the legal actions."""
    sevens = playable & SEVENS
    plain = playable ^ sevens
    count = plain.bit_count()
    pick = int(rng.random() * _legal_count(playable, other))
    if pick < count:
        return _PLAY[nth_card(plain, pick)]
    pick -= count
    if pick < 4 * sevens.bit_count():
        return _PLAY_SEVEN[nth_card(sevens, pick >> 2)][pick & 3]
    assert other is not None
    return other


def rollout_choice(
    hands: list[int], seat: int, playable: int, other: Action | None, rng: random.Random
) -> Action:
    """Uniformly one of the cards that may go down (a seven naming a random suit): never a draw,
    a take or a sit-out while a card could be played."""
    c = nth_card(playable, int(rng.random() * playable.bit_count()))
    return _PLAY_SEVEN[c][int(rng.random() * 4)] if (1 << c) & SEVENS else _PLAY[c]


CHOOSERS: dict[str, Chooser] = {"random": random_choice, "rollout": rollout_choice}


# --- State ------------------------------------------------------------------------------------------


class State:
    """A whole match: the round being played (or just finished) and the totals so far."""

    __slots__ = (
        "charges",
        "dealer",
        "hands",
        "options",
        "out",
        "owed",
        "passes",
        "phase",
        "pile",
        "rng",
        "round",
        "skip",
        "stock",
        "suit",
        "to_act",
        "totals",
    )

    def __init__(self, options: Options, rng: Rng) -> None:
        self.options = options
        self.rng = rng
        self.round = 0
        self.dealer = 0
        self.phase = PLAYING
        self.to_act: int | None = None
        self.hands: list[int] = []  # one card mask per seat
        self.stock: list[int] = []  # top card last
        self.pile: list[int] = []  # face-up top last
        self.suit = -1  # suit in force, -1 after a joker
        self.owed = 0
        self.skip = False
        self.passes = 0  # automatic passes in a row
        self.totals = [0] * options.players
        self.charges: list[int] | None = None  # this round's, once it is over
        self.out: int | None = None  # the seat that went out this round


def round_in_play(
    options: Options,
    hands: list[int],
    stock: list[int],
    pile: list[int],
    *,
    suit: int,
    owed: int,
    skip: bool,
    to_act: int,
    passes: int,
    seed: int,
) -> State:
    """A round being played, from its parts (hand masks, the stock and the pile with their tops
    last), as a search samples one; unchecked, for speed: the caller puts every card in one place.
    The totals start at 0, so the round's end says only what it charged."""
    state = State(options, Rng(seed))
    state.round = 1
    state.hands, state.stock, state.pile = hands, stock, pile
    state.suit, state.owed, state.skip, state.to_act, state.passes = suit, owed, skip, to_act, passes
    return state


def _drawable(state: State) -> bool:
    return bool(state.stock) or len(state.pile) > 1


# --- The rulebook: what the seat to act may do, asked by legal_actions, apply and the turn order ---


def _playable(state: State) -> int:
    """Mask of the cards the seat to act may put down now: an answer to owed cards, an ace to pass
    a skip on, or else a card that fits the top with the suit in force."""
    hand = state.hands[state.to_act]
    if state.owed:
        return hand & state.options.draw_cards
    if state.skip:
        return hand & ACES
    return hand & state.options.fit_table[state.pile[-1] * 5 + state.suit + 1]


def _other(state: State) -> Action | None:
    """The one action besides a card the seat to act may take now: take what is owed, sit out an
    ace's skip, or draw a card (None: nothing is owed or skipped and nothing is left to draw)."""
    if state.owed:
        return TAKE
    if state.skip:
        return SIT_OUT
    return DRAW if _drawable(state) else None


def _draw(state: State, seat: int, count: int, events: list[Event]) -> int:
    """Move up to ``count`` cards from the stock into ``seat``'s hand, reshuffling the pile
    under its top when the stock runs out; returns how many could be drawn."""
    stock, pile = state.stock, state.pile
    hand = state.hands[seat]
    drawn = 0
    while drawn < count:
        if not stock:
            if len(pile) < 2:
                break
            stock.extend(pile[:-1])
            del pile[:-1]
            state.rng.shuffle(stock)
            events.append({"type": "reshuffled", "count": len(stock)})
        hand |= 1 << stock.pop()
        drawn += 1
    state.hands[seat] = hand
    return drawn


def draw_into(
    hand: int, count: int, stock: list[int], pile: list[int], shuffle: Callable[[list], None]
) -> int:
    """``hand`` (a mask) with up to ``count`` cards from the stock, the pile under its top shuffled
    into a new stock when it runs out; what cannot be drawn is written off. For the fast playouts,
    which keep no events."""
    while count:
        if not stock:
            if len(pile) < 2:
                break
            stock.extend(pile[:-1])
            del pile[:-1]
            shuffle(stock)
        hand |= 1 << stock.pop()
        count -= 1
    return hand


def _start_turn(state: State, seat: int, events: list[Event]) -> None:
    """Give the turn to ``seat``, passing automatically for whoever can do nothing."""
    players = state.options.players
    state.to_act = seat
    while not _playable(state) and _other(state) is None:
        events.append({"type": "passed", "seat": seat})
        state.passes += 1
        if state.passes >= players:
            _end_round(state, None, events)
            return
        seat = state.to_act = (seat + 1) % players


def _end_round(state: State, out: int | None, events: list[Event] | None) -> None:
    """Charge the hands, add up the totals, and end the match when a total reaches the target;
    the public events go to ``events`` (None: a playout, which keeps none)."""
    values = [hand_value(hand) for hand in state.hands]
    if out is None:
        lowest = min(values)
        spared = values.count(lowest) == 1
        charges = [0 if value == lowest else value for value in values] if spared else [0] * len(values)
    else:
        charges = values  # the one who went out holds nothing
    state.charges = charges
    state.totals = [total + charge for total, charge in zip(state.totals, charges, strict=True)]
    state.out = out
    state.owed = 0
    state.skip = False
    state.to_act = None
    over = max(state.totals) >= state.options.target
    state.phase = OVER if over else AWAITING_DEAL
    if events is None:
        return
    events.append(
        {
            "type": "round_over",
            "round": state.round,
            "out": out,
            "charges": list(charges),
            "totals": list(state.totals),
            "hands": [[CODES[c] for c in cards_of(hand)] for hand in state.hands],
        }
    )
    if over:
        winners, losers = _winners(state), _losers(state)
        totals = list(state.totals)
        events.append({"type": "match_over", "totals": totals, "winners": winners, "losers": losers})


def _winners(state: State) -> list[int]:
    """The single lowest total wins the match; a shared lowest total means no winner."""
    if state.phase != OVER:
        return []
    lowest = min(state.totals)
    seats = [seat for seat, total in enumerate(state.totals) if total == lowest]
    return seats if len(seats) == 1 else []


def _losers(state: State) -> list[int]:
    if state.phase != OVER:
        return []
    return [seat for seat, total in enumerate(state.totals) if total >= state.options.target]


# --- Dealing ----------------------------------------------------------------------------------------


def _deal(state: State, deal: dict | None, dealer: int, events: list[Event]) -> None:
    """Deal a round from the state's RNG, or exactly as a fixed ``deal`` says."""
    options = state.options
    players = options.players
    if deal is None:
        deck = list(range(options.deck_size))
        state.rng.shuffle(deck)
        hands = [mask_of(deck[HAND_SIZE * s : HAND_SIZE * (s + 1)]) for s in range(players)]
        stock = deck[HAND_SIZE * players :]
        turned = stock.pop()
        buried = []
        while (1 << turned) & _BURIED_AT_DEAL:
            stock.insert(0, turned)
            buried.append(CODES[turned])
            turned = stock.pop()
        pile = [turned]
    else:
        dealer, hands, stock, pile = _fixed_deal(options, deal, dealer)
        buried = []
    state.round += 1
    state.dealer = dealer
    state.hands = hands
    state.stock = stock
    state.pile = pile
    top = pile[-1]
    state.suit = top & 3 if top < 52 else -1
    state.owed = 0
    state.skip = False
    state.passes = 0
    state.charges = None
    state.out = None
    state.phase = PLAYING
    events.append(
        {"type": "dealt", "round": state.round, "dealer": dealer, "top": CODES[top], "buried": buried}
    )
    _start_turn(state, (dealer + 1) % players, events)


def _fixed_deal(options: Options, deal: Any, dealer: int) -> tuple[int, list[int], list[int], list[int]]:
    """Validate a scenario's deal: (dealer, hand masks, stock top last, pile); ``ValueError`` if invalid."""
    if not isinstance(deal, dict):
        raise ValueError("A deal must be a JSON object with 'hands', 'stock' and 'pile'.")
    unknown = set(deal) - {"dealer", "hands", "stock", "pile"}
    if unknown:
        raise ValueError(f"Unknown key(s) in the deal: {', '.join(sorted(unknown))}.")
    players = options.players
    dealer = deal.get("dealer", dealer)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
        raise ValueError(f"The deal's dealer must be a seat from 0 to {players - 1}, got {dealer!r}.")
    hands, stock, pile = _parse_layout(options, deal)
    if not all(hands):
        raise ValueError("Every hand in the deal needs at least one card.")
    return dealer, hands, stock, pile


def _parse_layout(options: Options, data: dict) -> tuple[list[int], list[int], list[int]]:
    """Hand masks, stock (top last) and pile from card codes (stock listed top first), checking
    that they hold the options' whole deck exactly once; ``ValueError`` otherwise."""
    players = options.players
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != players:
        raise ValueError(f"'hands' must be a list of {players} hands.")
    hands = [parse_codes(hand) for hand in hands]
    stock = parse_codes(data.get("stock"))
    pile = parse_codes(data.get("pile"))
    if not pile:
        raise ValueError("The pile needs at least its face-up top card.")
    everything = [c for hand in hands for c in hand] + stock + pile
    twice = sorted(c for c, times in Counter(everything).items() if times > 1)
    if twice:
        raise ValueError(f"{', '.join(CODES[c] for c in twice)} used more than once.")
    foreign = sorted(c for c in everything if c >= options.deck_size)
    if foreign:
        raise ValueError(f"{', '.join(CODES[c] for c in foreign)} not in this deck (jokers are off).")
    missing = sorted(set(range(options.deck_size)) - set(everything))
    if missing:
        raise ValueError(f"The whole deck must be used; missing {', '.join(CODES[c] for c in missing)}.")
    return [mask_of(hand) for hand in hands], stock[::-1], pile


# --- Readable rules ---------------------------------------------------------------------------------


def _answers(options: Options) -> OneOf:
    """The cards that answer owed cards under these options, for a sentence."""
    names = [gettext_noop("a two")]
    if options.jack_draws_two:
        names.append(gettext_noop("a jack"))
    if options.jokers:
        names.append(gettext_noop("a joker"))
    return OneOf(tuple(names))


def _refusal(state: State, action: Action) -> IllegalAction | None:
    """Why the seat to act may not take ``action`` now, or None when it may: the rulebook's
    verdict (``_playable``, ``_other``), with the rule broken said in a player's words."""
    if state.phase == OVER:
        return IllegalAction(gettext_noop("The match is over."))
    if state.phase == AWAITING_DEAL:
        return IllegalAction(gettext_noop("The round is over: wait for the next deal."))
    hand = state.hands[state.to_act]
    options = state.options
    kind = action.type
    if kind == "play":
        c = action.card
        if not 0 <= c < 54 or not hand >> c & 1:
            return IllegalAction(gettext_noop("You do not hold that card."))
        seven = c < 52 and c >> 2 == SEVEN
        if not seven and action.suit != -1:
            return IllegalAction(gettext_noop("Only a seven names a suit."))
        if _playable(state) >> c & 1:
            if seven and not 0 <= action.suit < 4:
                return IllegalAction(gettext_noop("Name a suit for your seven."))
            return None
        # Why not: owed cards first, then a skip, then the top to follow.
        if state.owed:
            if seven:
                return IllegalAction(gettext_noop("A seven cannot answer cards you owe."))
            return IllegalAction(
                gettext_noop("You must take the cards you owe or answer with %(answers)s."),
                answers=_answers(options),
            )
        if state.skip:
            if seven:
                return IllegalAction(
                    gettext_noop("A seven cannot dodge a skip: pass it on with an ace or sit out.")
                )
            return IllegalAction(
                gettext_noop("An ace is making you miss this turn: pass it on with an ace or sit out.")
            )
        top = state.pile[-1]
        # Nothing ever refuses to follow a joker, so ``top`` is an ordinary card here.
        if top & 3 != state.suit:  # a seven named another suit
            return IllegalAction(
                gettext_noop("That card does not follow %(top)s: the suit in force is %(suit)s."),
                top=CardRef(CODES[top]),
                suit=SuitRef(SUITS[state.suit]),
            )
        return IllegalAction(gettext_noop("That card does not follow %(top)s."), top=CardRef(CODES[top]))
    if action == _other(state):
        return None
    if kind == "draw":
        if state.owed:
            return IllegalAction(
                gettext_noop("You owe %(count)s cards: take them all or answer with %(answers)s."),
                count=state.owed,
                answers=_answers(options),
            )
        if state.skip:
            return IllegalAction(
                gettext_noop(
                    "You cannot draw while an ace makes you miss this turn: "
                    "pass it on with an ace or sit out."
                )
            )
        return IllegalAction(gettext_noop("There is nothing left to draw."))
    if kind == "take":
        return IllegalAction(gettext_noop("Nothing is waiting for you to take."))
    if kind == "sit_out":
        return IllegalAction(gettext_noop("No ace is making you miss a turn."))
    return IllegalAction(gettext_noop("Unknown action %(action)s."), action=repr(action))


# --- The game ---------------------------------------------------------------------------------------


def _suit_json(suit: int) -> str | None:
    return SUITS[suit] if suit >= 0 else None


def _bool_option(data: dict, key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"Option {key!r} must be true or false, got {value!r}.")
    return value


def _int_field(data: dict, key: str, low: int = 0, high: int | None = None) -> int:
    value = data.get(key)
    if type(value) is not int or value < low or (high is not None and value > high):
        raise ValueError(f"State field {key!r} is missing or out of range: {value!r}.")
    return value


class OptionsJSON(TypedDict):
    """A table's options as they cross JSON (``Options`` field by field)."""

    players: int
    """2, 3 or 4."""
    jokers: bool
    """The two jokers are in the deck: each makes the next player take five."""
    jack_draws_two: bool
    """A jack makes the next player take two, like a two."""
    court_follows: bool
    """A jack may go on a two, a queen on a three, a king on a four, whatever their suits."""
    target: int
    """The total (101, 301 or 501) that ends the match once a player reaches it."""


class AmericanaView(TypedDict):
    """What one seat (or a spectator) may know of a match: ``Americana.view``. Cards are codes
    (``"10H"``, ``"XR"``), suits are ``"S"``, ``"H"``, ``"D"``, ``"C"``, seats are 0-based."""

    game: str
    """Always ``"americana"``."""
    options: OptionsJSON
    """The table's options."""
    seat: int | None
    """Whose view this is; None for a spectator."""
    round: int
    """The current (or just finished) round, from 1."""
    dealer: int
    """The seat that dealt this round; the seat after it played first."""
    to_act: int | None
    """The seat whose decision it is; None between rounds and after the match."""
    hand: list[str] | None
    """This seat's cards, lowest first; None for a spectator."""
    hand_counts: list[int]
    """How many cards each seat holds."""
    stock_count: int
    """Cards left to draw (the stock itself is never shown)."""
    pile: list[str]
    """The face-up pile, its top last."""
    top: str
    """The pile's top card: the card to follow."""
    suit: str | None
    """The suit in force (a seven's named suit, else the top's); None after a joker (anything fits)."""
    owed: int
    """Cards the seat to act must take or pass on (twos, jacks when they draw, jokers)."""
    skip: bool
    """An ace makes the seat to act sit out unless it plays an ace."""
    passes: int
    """Automatic passes in a row (a seat that could neither play nor draw)."""
    totals: list[int]
    """Each seat's match total so far, this round's charges included once it is over."""
    charges: list[int] | None
    """What each hand was charged when the round ended; None while it is on."""
    out: int | None
    """The seat that went out this round; None while it is on, or when nobody went out."""
    round_over: bool
    """The round is finished (awaiting the next deal, or the match is over)."""
    awaiting_deal: bool
    """The round is over and the next one waits to be dealt."""
    match_over: bool
    """A total reached the target: the match is over."""
    winners: list[int]
    """Once the match is over, the seat with the single lowest total; empty otherwise (and on a tie)."""
    losers: list[int]
    """Once the match is over, the seats whose totals reached the target."""
    hands: list[list[str]] | None
    """Every hand, laid open once the round is over so every seat can check the charges; None before."""


class Americana:
    """Șeptică Americană behind the ``core.Game`` protocol."""

    name = NAME

    # Options

    def options_from_json(self, data: dict) -> Options:
        if not isinstance(data, dict):
            raise ValueError("Options must be a JSON object.")
        unknown = set(data) - set(_OPTION_KEYS)
        if unknown:
            raise ValueError(f"Unknown option(s): {', '.join(sorted(unknown))}.")
        players = data.get("players", 4)
        if type(players) is not int or players not in PLAYER_COUNTS:
            raise ValueError(f"'players' must be 2, 3 or 4, got {players!r}.")
        target = data.get("target", 101)
        if type(target) is not int or target not in TARGETS:
            raise ValueError(f"'target' must be 101, 301 or 501, got {target!r}.")
        return Options(
            players=players,
            jokers=_bool_option(data, "jokers", False),
            jack_draws_two=_bool_option(data, "jack_draws_two", False),
            court_follows=_bool_option(data, "court_follows", False),
            target=target,
        )

    def options_to_json(self, options: Options) -> OptionsJSON:
        return {
            "players": options.players,
            "jokers": options.jokers,
            "jack_draws_two": options.jack_draws_two,
            "court_follows": options.court_follows,
            "target": options.target,
        }

    # Lifecycle

    def new_match(self, options: Options, seed: int, deal: dict | None = None) -> State:
        state = State(options, Rng(seed))
        # Drawn even when a fixed deal names its dealer, so the RNG's use never depends on the deal.
        _deal(state, deal, state.rng.below(options.players), [])
        return state

    def next_round(self, state: State, deal: dict | None = None) -> list[Event]:
        if state.phase != AWAITING_DEAL:
            raise IllegalAction(
                gettext_noop("The match is over.")
                if state.phase == OVER
                else gettext_noop("The round is still on.")
            )
        events: list[Event] = []
        _deal(state, deal, (state.dealer + 1) % state.options.players, events)
        return events

    def round_number(self, state: State) -> int:
        return state.round

    def awaiting_deal(self, state: State) -> bool:
        return state.phase == AWAITING_DEAL

    def is_over(self, state: State) -> bool:
        return state.phase == OVER

    def to_act(self, state: State) -> int | None:
        return state.to_act

    # Rules

    def legal_actions(self, state: State) -> list[Action]:
        """The rulebook's answers listed: every playable card (a seven once per suit), then the
        other action open, if any."""
        if state.phase != PLAYING:
            return []
        actions: list[Action] = []
        _play_actions(_playable(state), actions)
        other = _other(state)
        if other is not None:
            actions.append(other)
        return actions

    def refusal(self, state: State, action: Action) -> IllegalAction | None:
        if not isinstance(action, Action):
            return IllegalAction(gettext_noop("Not an action of this game: %(action)s."), action=repr(action))
        return _refusal(state, action)

    def apply(self, state: State, action: Action) -> list[Event]:
        refusal = self.refusal(state, action)
        if refusal is not None:
            raise refusal
        seat = state.to_act
        events: list[Event] = []
        kind = action.type
        state.passes = 0
        if kind == "play":
            c = action.card
            state.hands[seat] ^= 1 << c
            state.pile.append(c)
            event: Event = {"type": "played", "seat": seat, "card": CODES[c]}
            if c >= 52:
                state.suit = -1
                state.owed += 5
            else:
                state.suit = action.suit if action.suit >= 0 else c & 3
                if (1 << c) & state.options.draw_cards:
                    state.owed += 2
                elif c >> 2 == ACE:
                    state.skip = True
            if action.suit >= 0:
                event["suit"] = SUITS[action.suit]
            events.append(event)
            if not state.hands[seat]:
                _end_round(state, seat, events)
                return events
        elif kind == "draw":
            _draw(state, seat, 1, events)
            events.append({"type": "drew", "seat": seat, "count": 1})
        elif kind == "take":
            owed, state.owed = state.owed, 0
            drawn = _draw(state, seat, owed, events)
            events.append({"type": "took", "seat": seat, "count": drawn})
            if drawn < owed:
                events.append({"type": "written_off", "seat": seat, "count": owed - drawn})
        else:
            state.skip = False
            events.append({"type": "sat_out", "seat": seat})
        _start_turn(state, (seat + 1) % state.options.players, events)
        return events

    # What each seat sees

    def view(self, state: State, seat: int | None) -> AmericanaView:
        players = state.options.players
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < players):
            raise ValueError(f"No seat {seat!r} at a table of {players}.")
        finished = state.phase != PLAYING
        return {
            "game": NAME,
            "options": self.options_to_json(state.options),
            "seat": seat,
            "round": state.round,
            "dealer": state.dealer,
            "to_act": state.to_act,
            "hand": None if seat is None else [CODES[c] for c in cards_of(state.hands[seat])],
            "hand_counts": [hand.bit_count() for hand in state.hands],
            "stock_count": len(state.stock),
            "pile": [CODES[c] for c in state.pile],
            "top": CODES[state.pile[-1]],
            "suit": _suit_json(state.suit),
            "owed": state.owed,
            "skip": state.skip,
            "passes": state.passes,
            "totals": list(state.totals),
            "charges": None if state.charges is None else list(state.charges),
            "out": state.out,
            "round_over": finished,
            "awaiting_deal": state.phase == AWAITING_DEAL,
            "match_over": state.phase == OVER,
            "winners": _winners(state),
            "losers": _losers(state),
            # Laid open once the round is over, for everyone to check the charges.
            "hands": [[CODES[c] for c in cards_of(hand)] for hand in state.hands] if finished else None,
        }

    # Serialisation

    def state_to_json(self, state: State) -> dict:
        return {
            "game": NAME,
            "options": self.options_to_json(state.options),
            "rng": state.rng.state,
            "round": state.round,
            "dealer": state.dealer,
            "phase": state.phase,
            "to_act": state.to_act,
            "hands": [[CODES[c] for c in cards_of(hand)] for hand in state.hands],
            "stock": [CODES[c] for c in reversed(state.stock)],  # top first, as in a deal
            "pile": [CODES[c] for c in state.pile],
            "suit": _suit_json(state.suit),
            "owed": state.owed,
            "skip": state.skip,
            "passes": state.passes,
            "totals": list(state.totals),
            "charges": None if state.charges is None else list(state.charges),
            "out": state.out,
        }

    def state_from_json(self, data: dict) -> State:
        if not isinstance(data, dict) or data.get("game") != NAME:
            raise ValueError("Not a saved Șeptică Americană state.")
        options = self.options_from_json(data.get("options"))
        players = options.players
        state = State(options, Rng(_int_field(data, "rng")))
        state.hands, state.stock, state.pile = _parse_layout(options, data)
        state.round = _int_field(data, "round", 1)
        state.dealer = _int_field(data, "dealer", 0, players - 1)
        state.phase = data.get("phase")
        if state.phase not in (PLAYING, AWAITING_DEAL, OVER):
            raise ValueError(f"Unknown phase {state.phase!r}.")
        state.to_act = None if state.phase != PLAYING else _int_field(data, "to_act", 0, players - 1)
        suit = data.get("suit")
        state.suit = -1 if suit is None else SUIT_INDEX.get(suit, -2)
        if state.suit == -2:
            raise ValueError(f"Unknown suit {suit!r}.")
        state.owed = _int_field(data, "owed")
        state.skip = data.get("skip")
        if not isinstance(state.skip, bool) or (state.skip and state.owed):
            raise ValueError("'skip' must be true or false, and never together with owed cards.")
        state.passes = _int_field(data, "passes", 0, players)
        totals = data.get("totals")
        charges = data.get("charges")
        for values in (totals, charges):
            if values is not None and not (
                isinstance(values, list)
                and len(values) == players
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)
            ):
                raise ValueError(f"Totals and charges must be {players} whole numbers.")
        if totals is None:
            raise ValueError("The state needs 'totals'.")
        state.totals = list(totals)
        state.charges = None if charges is None else list(charges)
        out = data.get("out")
        if out is not None and (not isinstance(out, int) or isinstance(out, bool) or not 0 <= out < players):
            raise ValueError(f"'out' must be a seat or null, got {out!r}.")
        state.out = out
        return state

    def clone(self, state: State) -> State:
        copy = State.__new__(State)
        copy.options = state.options
        copy.rng = Rng(state.rng.state)
        copy.round = state.round
        copy.dealer = state.dealer
        copy.phase = state.phase
        copy.to_act = state.to_act
        copy.hands = state.hands[:]
        copy.stock = state.stock[:]
        copy.pile = state.pile[:]
        copy.suit = state.suit
        copy.owed = state.owed
        copy.skip = state.skip
        copy.passes = state.passes
        copy.totals = state.totals[:]
        copy.charges = None if state.charges is None else state.charges[:]
        copy.out = state.out
        return copy

    def action_to_json(self, action: Action) -> ActionJSON:
        return action_to_json(action)

    def action_from_json(self, data: dict) -> Action:
        return ACTIONS.from_json(data)

    # Search

    def playout(
        self,
        state: State,
        rng: random.Random,
        policy: "str | Chooser | Sequence[Chooser]" = "random",
        record: list[tuple[Action, int]] | None = None,
    ) -> int:
        """Play the current round to its end, in place; see ``core.Game.playout``.

        ``policy``: "random", "rollout", any ``Chooser``, or one ``Chooser`` per seat (a search
        that plays its own seat otherwise than the others), asked at every decision where a card
        may go down (taking, sitting out or drawing with no card to play needs no asking). It
        asks the rulebook's two questions inline, on local variables, for speed. With ``record``
        it appends (action chosen, number of legal actions) per decision, for the tests that
        hold this path to the readable one.
        """
        options = state.options
        players = options.players
        choose = CHOOSERS.get(policy) if isinstance(policy, str) else policy
        if choose is None:
            raise ValueError(f"Unknown playout policy {policy!r}: expected 'random', 'rollout' or a chooser.")
        choosers = list(choose) if isinstance(choose, Sequence) else [choose] * players
        if len(choosers) != players:
            raise ValueError(f"One chooser per seat: {players} expected, {len(choosers)} given.")
        if state.phase != PLAYING:
            return 0
        fit_table = options.fit_table
        draw_cards = options.draw_cards
        shuffle = state.rng.shuffle
        hands, stock, pile = state.hands, state.stock, state.pile
        suit, owed, skip, passes = state.suit, state.owed, state.skip, state.passes
        seat = state.to_act
        top = pile[-1]
        decisions = 0
        out = None
        while True:
            hand = hands[seat]
            # The rulebook inline: ``playable`` as ``_playable``, ``other`` as ``_other``.
            if owed:
                playable = hand & draw_cards
                other: Action | None = TAKE
            elif skip:
                playable = hand & ACES
                other = SIT_OUT
            else:
                playable = hand & fit_table[top * 5 + suit + 1]
                other = DRAW if stock or len(pile) > 1 else None
                if not playable and other is None:
                    passes += 1
                    if passes >= players:
                        break
                    seat = seat + 1 if seat + 1 < players else 0
                    continue
            action = choosers[seat](hands, seat, playable, other, rng) if playable else other
            if record is not None:
                record.append((action, _legal_count(playable, other)))
            decisions += 1
            passes = 0
            c = action.card
            if c >= 0:
                low = 1 << c
                hand ^= low
                hands[seat] = hand
                pile.append(c)
                top = c
                if c >= 52:
                    suit = -1
                    owed += 5
                else:
                    suit = action.suit if action.suit >= 0 else c & 3
                    if low & draw_cards:
                        owed += 2
                    elif low & ACES:
                        skip = True
                if not hand:
                    out = seat
                    break
            elif other is SIT_OUT:
                skip = False
            else:
                # Take what is owed (writing off what cannot be drawn) or draw one card.
                hands[seat] = draw_into(hand, owed or 1, stock, pile, shuffle)
                owed = 0
            seat = seat + 1 if seat + 1 < players else 0
        state.suit, state.owed, state.skip, state.passes = suit, owed, skip, passes
        _end_round(state, out, None)
        return decisions

    def scenario_report(self, state: State) -> dict:
        return {
            "round": state.round,
            "to_act": state.to_act,
            "legal": sorted_action_json(self, self.legal_actions(state)),
            "hands": [[CODES[c] for c in cards_of(hand)] for hand in state.hands],
            "stock_count": len(state.stock),
            "pile_count": len(state.pile),
            "top": CODES[state.pile[-1]],
            "suit": _suit_json(state.suit),
            "owed": state.owed,
            "skip": state.skip,
            "round_over": state.phase != PLAYING,
            "charges": None if state.charges is None else list(state.charges),
            "totals": list(state.totals),
            "match_over": state.phase == OVER,
            "winners": _winners(state),
            "losers": _losers(state),
        }


GAME = Americana()
