"""Șeptică Americană players: what each level does with a seat's view.

Cards are the engine's small integers and sets of cards are bit masks (bit ``c`` for card ``c``),
as in the engine, so sampling hidden hands stays cheap inside the search loop. The search plays
its sampled rounds out on the engine itself (``apply``, then ``playout`` with ``habit`` choosing),
so the rules live in the engine only.
"""

import random

from gameplay.engine.americana import (
    ACES,
    GAME,
    HAND_SIZE,
    JOKER_MASK,
    POINTS,
    SEVENS,
    SIT_OUT,
    SUIT_MASK,
    TAKE,
    Chooser,
    Options,
    State,
    cards_of,
    mask_of,
    nth_card,
    play_action,
    round_in_play,
)
from gameplay.engine.americana import fit_mask as fits
from gameplay.engine.cards import SEVEN, SUIT_INDEX, SUITS, card
from gameplay.engine.core import Action

from .search import Cost, Search

# Calibrated with the arena on a 2-core server (budget against measured decision times).
COST = Cost(sample=20e-6, playout=10e-6, decision=1.5e-6)


def _is_play(action: dict) -> bool:
    return action["type"] == "play"


# --- easy ---------------------------------------------------------------------------------------------


def easy(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """A beginner: any card that may go down, seldom a draw or a take while a card could be played."""
    plays = [a for a in legal if _is_play(a)]
    if plays and rng.random() < 0.85:
        return plays[rng.randrange(len(plays))]
    return legal[rng.randrange(len(legal))]


# --- normal -------------------------------------------------------------------------------------------


def _best_suit(hand: list[int]) -> int:
    """The suit a seven should name: the one held most (sevens aside), then the dearest, then S H D C."""
    count = [0] * 4
    value = [0] * 4
    for c in hand:
        if c < 52 and c >> 2 != SEVEN:
            count[c & 3] += 1
            value[c & 3] += POINTS[c]
    return max(range(4), key=lambda s: (count[s], value[s], -s))


def _normal_card(hand: int, playable: int, danger: bool, pressed: bool, attack: int) -> int:
    """``normal``'s card among ``playable`` (a mask, never empty): the dearest kind first (sevens
    kept; attacks and aces kept unless somebody is about to go out or an attack or a skip is to be
    answered), then the card's points, then the most cards left of its suit, then the lowest.

    Called at nearly every decision of the hard player's playouts, so it walks the mask's bits in
    place and ranks a card by one integer (its worth, then its suit's count, below 16)."""
    if hand.bit_count() == 1 or not playable & (playable - 1):
        return playable.bit_length() - 1  # going out ends the round; one card leaves no choice
    chosen, best = -1, -1
    seven_kind = 120 if danger else 10
    attack_kind = 300 if danger or pressed else 50
    ace_kind = 250 if danger or pressed else 45
    cards = playable
    while cards:
        bit = cards & -cards
        cards ^= bit
        c = bit.bit_length() - 1
        if bit & SEVENS:
            kind = seven_kind
        elif bit & attack:
            kind = attack_kind
        elif bit & ACES:
            kind = ace_kind
        else:
            kind = 100
        worth = (kind + POINTS[c]) * 16 + (((hand ^ bit) & SUIT_MASK[c & 3]).bit_count() if c < 52 else 0)
        if worth > best:
            chosen, best = c, worth
    return chosen


def normal(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """A sound club player: sheds the dear cards, keeps sevens and answers to attacks for when
    they matter, attacks and dumps points when somebody is about to go out, names its longest suit."""
    plays = [a for a in legal if _is_play(a)]
    if not plays:
        return legal[0]  # draw, take or sit out: the only thing left
    hand = mask_of([card(c) for c in view["hand"]])
    me = view["seat"]
    danger = min(n for seat, n in enumerate(view["hand_counts"]) if seat != me) <= 2
    attack = GAME.options_from_json(view["options"]).draw_cards
    by_card: dict[int, list[dict]] = {}
    for action in plays:
        by_card.setdefault(card(action["card"]), []).append(action)
    chosen = _normal_card(hand, mask_of(list(by_card)), danger, bool(view["owed"] or view["skip"]), attack)
    options = by_card[chosen]
    if len(options) == 1:
        return options[0]
    named = SUITS[_best_suit(cards_of(hand ^ (1 << chosen)))]
    return next(a for a in options if a["suit"] == named)


def _danger(hands: list[int], seat: int) -> bool:
    """Whether a seat other than ``seat`` is about to go out (two cards or fewer)."""
    for hand in hands:  # the usual answer (nobody is close), found without counting seats
        if hand.bit_count() <= 2:
            break
    else:
        return False
    return any(other != seat and hand.bit_count() <= 2 for other, hand in enumerate(hands))


def normal_habit(options: Options) -> Chooser:
    """``normal`` itself as a playout chooser, on the playout's masks: what a normal player at
    that seat would do."""
    attack = options.draw_cards

    def choose(
        hands: list[int], seat: int, playable: int, other: Action | None, rng: random.Random
    ) -> Action:
        hand = hands[seat]
        if not playable & (playable - 1):  # one card: no need to size up the table
            c = playable.bit_length() - 1
        else:
            c = _normal_card(hand, playable, _danger(hands, seat), other is TAKE or other is SIT_OUT, attack)
        if (1 << c) & SEVENS:
            return play_action(c, _best_suit(cards_of(hand ^ (1 << c))))
        return play_action(c)

    return choose


# --- hard: what the history tells about the hidden hands ----------------------------------------------


class _Seat:
    """What the public events say about one hand: cards known to be in it (drawn from a known
    stock position), and ``void``: cards its older part (all but the ``fresh`` cards received since
    the inference) very likely lacks."""

    __slots__ = ("count", "fresh", "known", "void")

    def __init__(self) -> None:
        self.count = HAND_SIZE
        self.known = 0
        self.void = 0
        self.fresh = 0

    def infer(self, void: int, received: int) -> None:
        """A new inference about the hand before it received ``received`` cards."""
        self.void = (self.void | void) if self.fresh == 0 else void
        self.fresh = received


class Knowledge:
    """The round replayed from its public events: per-seat inferences and known stock positions.

    Plain draws suggest a hand lacks the ordinary cards that fit (sevens, jokers, twos and aces
    may be kept on purpose); taking owed cards suggests no answer was held; an automatic pass
    proves nothing fitted. The cards buried at the deal lie at the stock's bottom in a known order.
    """

    def __init__(self, players: int, options: dict, top: int, stock: int, buried: list[int]) -> None:
        self.court = options["court_follows"]
        self.seats = [_Seat() for _ in range(players)]
        self.top = top  # -1 until known
        self.suit = top & 3 if 0 <= top < 52 else -1
        self.stock: list[int] = [*reversed(buried), *([-1] * (stock - len(buried)))]  # bottom first
        self.pending: list[int] = []  # what was left of the stock before a reshuffle, for the next drawer
        self.attack = GAME.options_from_json(options).draw_cards
        self.plain = ~(SEVENS | JOKER_MASK | ACES | self.attack)

    def _receive(self, seat: int, count: int) -> int:
        """Give ``seat`` the cards a draw of ``count`` takes; how many of them are not known."""
        taken = self.pending + [self.stock.pop() for _ in range(count - len(self.pending))]
        self.pending = []
        known = [c for c in taken if c >= 0]
        hand = self.seats[seat]
        hand.count += count
        hand.known |= mask_of(known)
        return count - len(known)

    def event(self, event: dict) -> None:
        kind = event["type"]
        seat = event.get("seat")
        if kind == "played":
            c = card(event["card"])
            hand = self.seats[seat]
            hand.count -= 1
            bit = 1 << c
            if hand.known & bit:
                hand.known ^= bit
            elif hand.void & bit:
                hand.fresh = max(0, hand.fresh - 1)  # it can only have come from the fresh cards
            self.top = c
            self.suit = SUIT_INDEX[event["suit"]] if "suit" in event else (c & 3 if c < 52 else -1)
        elif kind == "drew":
            received = self._receive(seat, event["count"])
            if self.top >= 0:
                self.seats[seat].infer(fits(self.top, self.suit, self.court) & self.plain, received)
        elif kind == "took":
            received = self._receive(seat, event["count"])
            self.seats[seat].infer(self.attack, received)
        elif kind == "sat_out":
            self.seats[seat].infer(ACES, 0)
        elif kind == "passed" and self.top >= 0:
            self.seats[seat].infer(fits(self.top, self.suit, self.court), 0)
        elif kind == "reshuffled":
            self.pending = self.stock
            self.stock = [-1] * event["count"]

    @classmethod
    def from_history(cls, view: dict, history: list[dict]) -> "Knowledge | None":
        """The knowledge of the current round, or None when the history does not match the view
        (partial, or from another round): the search then relies on the view alone. Round 1's deal
        event never reaches the history (``new_match`` returns none), so its opening card and
        buried cards stay unknown until the first play."""
        start = max((i for i, e in enumerate(history) if e.get("type") == "dealt"), default=-1)
        options = view["options"]
        players = options["players"]
        stock = (54 if options["jokers"] else 52) - HAND_SIZE * players - 1
        try:
            if start >= 0:
                dealt = history[start]
                if dealt["round"] != view["round"]:
                    return None
                top, buried = card(dealt["top"]), [card(c) for c in dealt["buried"]]
            else:
                top, buried = -1, []
            knowledge = cls(players, options, top, stock, buried)
            for event in history[start + 1 :]:
                knowledge.event(event)
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        counts = [hand.count for hand in knowledge.seats]
        if counts != view["hand_counts"] or len(knowledge.stock) != view["stock_count"]:
            return None
        return knowledge


# --- hard: sampling and search ------------------------------------------------------------------------


class Sampler:
    """Full positions (engine states of the round in play) consistent with a seat's view and, when
    given, the history's knowledge: known cards where they are, inferred voids respected when possible."""

    def __init__(self, view: dict, knowledge: Knowledge | None) -> None:
        self.options = GAME.options_from_json(view["options"])
        deck = (1 << self.options.deck_size) - 1
        self.me = view["seat"]
        self.hand = mask_of([card(c) for c in view["hand"]])
        self.counts = view["hand_counts"]
        self.pile = [card(c) for c in view["pile"]]
        unseen = deck & ~self.hand & ~mask_of(self.pile)
        players = len(self.counts)
        self.known = [0] * players
        self.void = [0] * players
        self.fresh = [0] * players
        self.stock_known = [-1] * view["stock_count"]  # bottom first, -1 where unknown
        if knowledge is not None:
            for seat, hand in enumerate(knowledge.seats):
                if seat != self.me:
                    self.known[seat] = hand.known & unseen
                    self.void[seat] = hand.void
                    self.fresh[seat] = hand.fresh
            self.stock_known = [c if c >= 0 and unseen >> c & 1 else -1 for c in knowledge.stock]
        for c in self.stock_known:
            if c >= 0:
                unseen &= ~(1 << c)
        for mask in self.known:
            unseen &= ~mask
        self.pool = cards_of(unseen)
        # The most constrained hands pick first, from cards that agree with their inference.
        self.order = sorted(
            (s for s in range(players) if s != self.me),
            key=lambda s: (self.fresh[s] - self.counts[s] if self.void[s] else 0, s),
        )
        self.suit = -1 if view["suit"] is None else SUIT_INDEX[view["suit"]]
        self.owed, self.skip, self.seat, self.passes = (
            view["owed"],
            view["skip"],
            view["to_act"],
            view["passes"],
        )

    def __call__(self, rng: random.Random) -> State:
        pool = self.pool[:]
        rng.shuffle(pool)
        hands = [0] * len(self.counts)
        hands[self.me] = self.hand
        for seat in self.order:
            hand = self.known[seat]
            need = self.counts[seat] - hand.bit_count()
            void = self.void[seat]
            if void:
                older = max(0, need - self.fresh[seat])
                fitting = mask_of([c for c in pool if not void >> c & 1][:older])
                pool = [c for c in pool if not fitting >> c & 1]
                hand |= fitting
                need -= fitting.bit_count()
            hands[seat] = hand | mask_of(pool[:need])
            del pool[:need]
        stock = [c if c >= 0 else pool.pop() for c in self.stock_known]  # top last
        return round_in_play(
            self.options,
            hands,
            stock,
            self.pile[:],
            suit=self.suit,
            owed=self.owed,
            skip=self.skip,
            to_act=self.seat,
            passes=self.passes,
            seed=rng.getrandbits(64),
        )


def _dearest(cards: int) -> int:
    """The card of the mask with the most points, the lowest of those."""
    chosen, best = -1, -1
    while cards:
        bit = cards & -cards
        cards ^= bit
        c = bit.bit_length() - 1
        if POINTS[c] > best:
            chosen, best = c, POINTS[c]
    return chosen


def habit(options: Options) -> Chooser:
    """``normal``'s habits, loosened, as a playout chooser for every seat: answer owed cards and
    skips whenever possible; on an ordinary turn keep sevens, twos and aces while an ordinary
    card fits, but attack and skip when somebody is about to go out; half the time shed the
    dearest card, otherwise any; a seven names the suit held most."""
    attack = options.draw_cards
    plain = ((1 << 54) - 1) & ~(SEVENS | JOKER_MASK | ACES | attack)

    def choose(
        hands: list[int], seat: int, playable: int, other: Action | None, rng: random.Random
    ) -> Action:
        cards = playable
        if other is not TAKE and other is not SIT_OUT:  # an ordinary turn
            if _danger(hands, seat):
                cards = cards & (attack | ACES) or cards & plain or cards
            else:
                cards = cards & plain or cards & ~SEVENS or cards
        c = _dearest(cards) if rng.random() < 0.5 else nth_card(cards, int(rng.random() * cards.bit_count()))
        if (1 << c) & SEVENS:
            return play_action(c, _best_suit(cards_of(hands[seat] ^ (1 << c))))
        return play_action(c)

    return choose


MATCH_WON = 100
"""What ending the match in the lead is worth beside a round's points (and ending it behind costs)."""


def standing(totals: list[int], me: int, target: int, match_won: int = MATCH_WON) -> float:
    """How good the match totals are for ``me``: the lead over the best of the others (the lowest
    total wins, so charging a player far behind helps only by ending the match), and, once a total
    reaches the target, ``match_won`` for the match won or lost on top."""
    lead = min(total for seat, total in enumerate(totals) if seat != me) - totals[me]
    if match_won and max(totals) >= target:
        return lead + (match_won if lead > 0 else -match_won if lead < 0 else 0)
    return lead


def seats_model(me: int, options: Options) -> list[Chooser]:
    """The playouts' players, one chooser per seat: ``me`` by ``habit`` (loose, so the search sees what
    its own later choices could make of a position), every other seat as ``normal`` would play its
    hand (the sampled hands are the guess; the model of how they are played should be the best one
    at hand)."""
    theirs = normal_habit(options)
    model = [theirs] * options.players
    model[me] = habit(options)
    return model


def search(
    view: dict,
    legal: list[dict],
    rng: random.Random,
    history: list[dict] | None,
    *,
    match_won: int = MATCH_WON,
) -> Search:
    """What the hard player and a review judge actions by: positions sampled from what the seat knows,
    each action played out to the round's end as ``seats_model`` says and scored by ``standing`` of the
    match totals then (``match_won`` on top for a match decided). ``legal`` comes back with the normal
    player's pick first, so it wins ties."""
    me = view["seat"]
    knowledge = None if history is None else Knowledge.from_history(view, history)
    sample = Sampler(view, knowledge)
    model = seats_model(me, sample.options)
    target, before = sample.options.target, view["totals"]
    favourite = normal(view, legal, rng)
    ordered = [favourite, *(a for a in legal if a is not favourite)]
    actions = [GAME.action_from_json(a) for a in ordered]

    def evaluate(base: State, index: int, rng: random.Random) -> tuple[float, int]:
        state = GAME.clone(base)
        GAME.apply(state, actions[index])
        decisions = GAME.playout(state, rng, model)
        totals = [total + charge for total, charge in zip(before, state.charges, strict=True)]
        return standing(totals, me, target, match_won), decisions

    return Search(ordered, sample, evaluate, COST)
