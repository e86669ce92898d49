"""A fast Șeptică Americană round simulator whose players follow the normal player's habits.

The engine's own playout plays a random fitting card for everyone, which squanders sevens and
twos: a search on it cannot see why a good player keeps them, and loses to the heuristic player
it should beat. These playouts keep the rules of RULES.md §1 (the tests hold them to the
engine's ``apply``) and let every seat play like ``normal``, with some randomness.

A position is a plain list ``[hands, stock, pile, suit, owed, skip, seat, passes]``: hand bit
masks, the stock with its top last, the pile with its top last, the suit in force (-1 after a
joker), the cards owed, the pending skip, the seat to act and the automatic passes in a row.
"""

import random

from gameplay.engine.americana import (
    ACES,
    FIT_COURT,
    FIT_PLAIN,
    JACKS,
    POINTS,
    SEVENS,
    SUIT_MASK,
    TWOS,
    draw_into,
    hand_value,
)
from gameplay.engine.americana import JOKER_MASK as JOKERS
from gameplay.engine.cards import ACE, CODES, SUIT_INDEX, SUITS, card

HANDS, STOCK, PILE, SUIT, OWED, SKIP, SEAT, PASSES = range(8)

_FIT = {False: FIT_PLAIN, True: FIT_COURT}


def charges(hands: list[int], out: int | None) -> list[int]:
    """RULES.md §1 scoring of a finished round (``out``: who went out, None when nobody did)."""
    values = [hand_value(h) for h in hands]
    if out is not None:
        return values
    lowest = min(values)
    if values.count(lowest) > 1:
        return [0] * len(values)
    return [0 if v == lowest else v for v in values]


def best_suit(hand: int) -> int:
    """The suit held most (sevens aside), as ``normal`` names for a seven."""
    rest = hand & ~SEVENS
    return max(range(4), key=lambda s: ((rest & SUIT_MASK[s]).bit_count(), -s))


def draw_cards(options: dict) -> int:
    """The cards that make the next player take cards (and may answer such an attack)."""
    return TWOS | (JACKS if options["jack_draws_two"] else 0) | (JOKERS if options["jokers"] else 0)


def _play_json(c: int, suit: int) -> dict:
    action = {"type": "play", "card": CODES[c]}
    if suit >= 0:
        action["suit"] = SUITS[suit]
    return action


class Simulator:
    """Plays rounds to their end under one table's options."""

    def __init__(self, options: dict) -> None:
        self.players = options["players"]
        self.attack = draw_cards(options)
        self.plain = ((1 << 54) - 1) & ~(SEVENS | JOKERS | ACES | self.attack)
        self.fit = _FIT[options["court_follows"]]

    def play(self, pos: list, card: int, suit: int) -> int | None:
        """Play ``card`` (a seven naming ``suit``) for the seat to act; the seat if it went out."""
        seat = pos[SEAT]
        hands = pos[HANDS]
        hands[seat] ^= 1 << card
        pos[PILE].append(card)
        pos[PASSES] = 0
        if card >= 52:
            pos[SUIT] = -1
            pos[OWED] += 5
        else:
            pos[SUIT] = suit if suit >= 0 else card & 3
            if (1 << card) & self.attack:
                pos[OWED] += 2
            elif card >> 2 == ACE:
                pos[SKIP] = True
        if not hands[seat]:
            return seat
        pos[SEAT] = (seat + 1) % self.players
        return None

    def draw(self, pos: list, count: int, rng: random.Random) -> None:
        """The seat to act draws ``count`` cards (reshuffling the pile under its top when the stock
        runs out, writing off what cannot be drawn) and the turn moves on."""
        seat = pos[SEAT]
        pos[HANDS][seat] = draw_into(pos[HANDS][seat], count, pos[STOCK], pos[PILE], rng.shuffle)
        pos[PASSES] = 0
        pos[SEAT] = (seat + 1) % self.players

    def step(self, pos: list, action: dict, rng: random.Random) -> int | None:
        """Apply a legal action in its JSON form; the seat if it went out."""
        kind = action["type"]
        if kind == "play":
            suit = SUIT_INDEX[action["suit"]] if "suit" in action else -1
            pos[SKIP] = False
            return self.play(pos, card(action["card"]), suit)
        if kind == "take":
            owed, pos[OWED] = pos[OWED], 0
            self.draw(pos, owed, rng)
        elif kind == "draw":
            self.draw(pos, 1, rng)
        else:
            pos[SKIP] = False
            pos[PASSES] = 0
            pos[SEAT] = (pos[SEAT] + 1) % self.players
        return None

    def finish(
        self, pos: list, rng: random.Random, record: list[tuple[int, dict]] | None = None
    ) -> tuple[list[int], int]:
        """Play the round to its end in place, every seat playing like ``normal`` with some
        randomness; returns the round's charges and the decisions made. ``record`` receives
        (seat, action JSON) per decision, for the tests that replay them through the engine."""
        players = self.players
        attack, plain, fit = self.attack, self.plain, self.fit
        hands, stock, pile = pos[HANDS], pos[STOCK], pos[PILE]
        suit, owed, skip, seat, passes = pos[SUIT], pos[OWED], pos[SKIP], pos[SEAT], pos[PASSES]
        rand = rng.random
        out = None
        decisions = 0
        while True:
            hand = hands[seat]
            if owed or skip:
                cards = hand & (attack if owed else ACES)
                if not cards:
                    decisions += 1
                    if record is not None:
                        record.append((seat, {"type": "sit_out" if skip else "take"}))
                    if skip:
                        skip = False
                    else:
                        hands[seat] = draw_into(hand, owed, stock, pile, rng.shuffle)
                        owed = 0
                    passes = 0
                    seat = seat + 1 if seat + 1 < players else 0
                    continue
            else:
                cards = hand & fit[pile[-1] * 5 + suit + 1]
                if not cards:
                    if stock or len(pile) > 1:
                        decisions += 1
                        if record is not None:
                            record.append((seat, {"type": "draw"}))
                        hands[seat] = draw_into(hand, 1, stock, pile, rng.shuffle)
                        passes = 0
                    else:
                        passes += 1
                        if passes >= players:
                            break
                    seat = seat + 1 if seat + 1 < players else 0
                    continue
                # Somebody about to go out: attack and skip them, or at least shed points.
                danger = any(hands[s].bit_count() <= 2 for s in range(players) if s != seat)
                if danger:
                    cards = cards & (attack | ACES) or cards & plain or cards
                else:
                    cards = cards & plain or cards & ~SEVENS or cards
            # Pick one of ``cards``: half the time the dearest, else any (normal's habit, loosened).
            if rand() < 0.5:
                best = -1
                c = 0
                rest = cards
                while rest:
                    low = rest & -rest
                    k = low.bit_length() - 1
                    if POINTS[k] > best:
                        best, c = POINTS[k], k
                    rest ^= low
            else:
                pick = int(rand() * cards.bit_count())
                for _ in range(pick):
                    cards &= cards - 1
                c = (cards & -cards).bit_length() - 1
            bit = 1 << c
            hand ^= bit
            hands[seat] = hand
            pile.append(c)
            passes = 0
            decisions += 1
            if c >= 52:
                suit = -1
                owed += 5
            elif bit & SEVENS:
                suit = best_suit(hand)
            else:
                suit = c & 3
                if bit & attack:
                    owed += 2
                elif bit & ACES:
                    skip = True
            if record is not None:
                record.append((seat, _play_json(c, suit if bit & SEVENS else -1)))
            if not hand:
                out = seat
                break
            seat = seat + 1 if seat + 1 < players else 0
        pos[SUIT], pos[OWED], pos[SKIP], pos[SEAT], pos[PASSES] = suit, owed, skip, seat, passes
        return charges(hands, out), decisions
