"""Classic Șeptică: capture the tens and aces (RULES.md §2).

One module, long on purpose: it is the game's complete rules, read top to bottom against
RULES.md §2, with the fast ``playout`` playing the same rules on local variables beside
``apply``; split, one rule would be scattered across files, its fast copy far from the readable one.

Points RULES.md leaves open, decided as a Romanian table would expect (each is tested):
- Deal 1's leader is drawn from the seed before the shuffle. "rotate" moves the lead one seat on
  from the previous deal's first leader. "winner" gives it to the last deal's winner; in teams to
  the first seat of the winning team after the previous deal's first leader (so partners take
  turns), and a tied deal rotates.
- Totals (points) and games (deals won) are both counted in every match format, so the score
  table can show both; only the format decides when the match ends and who wins it.
- Stock sizes are multiples of the player count and every trick takes one card from every hand
  per round, so refills always come out even: hands stay the same size, as the rules promise.
- A trick leaves the table only through "take", even when its winner is obvious, and the deal's
  score is settled on the last take, so every seat sees the last trick before the deal ends.
- The "rollout" policy continues whenever the leader can (a play beats "end" in that policy).
- A scenario deal may omit "leader": the rules (seed, lead option) then choose as for a shuffled deal.
- Cards stay in a hand in the order they came (dealt, then drawn); screens sort them as they like.
- Refusals name the rule broken. A move out of turn that touches the trick's end (taking it, ending
  it) says who may make it, through ``out_of_turn_reason``, which ``core.act`` consults.
"""

import random
from dataclasses import dataclass
from typing import TypedDict

from .cards import ACE, CODES, RANKS, SEVEN, TEN, parse_codes
from .core import (
    Action,
    ActionJSON,
    ActionSet,
    Event,
    IllegalAction,
    action_to_json,
    gettext_noop,
    sorted_action_json,
)
from .rng import Rng

HAND_SIZE = 4
MATCHES = {
    "points8": ("points", 8),
    "points21": ("points", 21),
    "games1": ("games", 1),
    "games2": ("games", 2),
    "games3": ("games", 3),
}
LEADS = ("rotate", "winner")
POLICIES = ("random", "rollout")

# 7 to A in four suits; three players play without the 8♠ and 8♣ (30 cards share out evenly).
DECK = tuple(range(SEVEN * 4, 52))
DECKS = {
    2: DECK,
    3: tuple(c for c in DECK if CODES[c] not in ("8S", "8C")),
    4: DECK,
}
POINTS = tuple(int(c >> 2 in (TEN, ACE)) for c in range(52))
# CUTS[cutting rank][card]: the card cuts a trick led with that rank (its own rank or a seven).
CUTS = tuple(tuple(c >> 2 in (r, SEVEN) for c in range(52)) for r in range(len(RANKS)))
# NEXT[n][seat] and DRAW_ORDER[n][winner]: play order tables, so the hot path never takes a modulo.
NEXT = {n: tuple((s + 1) % n for s in range(n)) for n in (2, 3, 4)}
DRAW_ORDER = {n: tuple(tuple((w + i) % n for i in range(n)) for w in range(n)) for n in (2, 3, 4)}

PLAY, CONTINUE, TAKE, DEAL_OVER, MATCH_OVER = range(5)
PHASES = ("play", "continue", "take", "deal_over", "match_over")
AWAITING = ("play", "continue", "take", None, None)


@dataclass(frozen=True, slots=True)
class Options:
    players: int = 2
    match: str = "points8"
    lead: str = "rotate"

    @property
    def sides(self) -> int:
        """Four players play two teams (seats 0+2 v 1+3); otherwise every seat is a side."""
        return 2 if self.players == 4 else self.players


# One decision: play a card, end the trick (the leader, instead of fighting on), or take it.
# Every action exists once, so legal_actions and the playout never build one.
ACTIONS = ActionSet(("end", "take"), DECK)
PLAYS = ACTIONS.plays
END, TAKE_TRICK = ACTIONS.kinds["end"], ACTIONS.kinds["take"]


class State:
    """A match in progress: plain fields changed in place by ``apply`` and by the playout fast path.

    ``stock`` keeps its top card last (``pop`` draws it); ``cutting`` and ``holder`` are -1 when no
    trick is on the table. Who played each trick card follows from ``leader``: card i is seat
    (leader + i) mod n, since every round is the leader and then each other seat in order.
    """

    __slots__ = (
        "captured",
        "cutting",
        "deal",
        "deal_leader",
        "games_won",
        "hands",
        "holder",
        "last_winner",
        "leader",
        "options",
        "phase",
        "rng",
        "stock",
        "totals",
        "trick",
        "turn",
        "winners",
        "won",
    )

    def __init__(self, options: Options, rng: Rng) -> None:
        n = options.players
        self.options = options
        self.rng = rng
        self.deal = 0
        self.phase = PLAY
        self.deal_leader = self.leader = self.turn = 0
        self.holder = self.cutting = -1
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.stock: list[int] = []
        self.trick: list[int] = []
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.captured = [0] * n
        self.totals = [0] * options.sides
        self.games_won = [0] * options.sides
        self.last_winner = -1
        self.winners: list[int] = []


def _side_points(state: State) -> list[int]:
    captured = state.captured
    if state.options.players == 4:
        return [captured[0] + captured[2], captured[1] + captured[3]]
    return list(captured)


def _side_seats(options: Options, side: int) -> list[int]:
    return [side, side + 2] if options.players == 4 else [side]


def teams(options: Options) -> list[list[int]]:
    """The seats that score together, side by side: partners face each other at four."""
    return [_side_seats(options, side) for side in range(options.sides)]


def _cut_hint(cutting: int) -> IllegalAction:
    if cutting == SEVEN:
        return IllegalAction(gettext_noop("To continue you must cut: play a 7."))
    return IllegalAction(
        gettext_noop("To continue you must cut: play a %(rank)s or a 7."), rank=RANKS[cutting]
    )


def _parse_deal(deal: object, n: int) -> tuple[list[list[int]], list[int], int | None]:
    """(hands, stock with its top last, leader or None) for a scenario deal; ``ValueError`` if invalid."""
    if not isinstance(deal, dict):
        raise ValueError("A deal must be a JSON object with 'hands' and 'stock'.")
    unknown = sorted(set(deal) - {"leader", "hands", "stock"})
    if unknown:
        raise ValueError(f"Unknown deal keys: {', '.join(unknown)}.")
    hands_json = deal.get("hands")
    if (
        not isinstance(hands_json, list)
        or len(hands_json) != n
        or any(not isinstance(h, list) or len(h) != HAND_SIZE for h in hands_json)
    ):
        raise ValueError(f"A deal needs 'hands': {n} lists of {HAND_SIZE} card codes.")
    hands = [parse_codes(h) for h in hands_json]
    if "stock" not in deal:
        raise ValueError("A deal needs 'stock': the remaining card codes, top first.")
    stock = parse_codes(deal["stock"])
    deck = DECKS[n]
    seen: set[int] = set()
    for c in [c for hand in hands for c in hand] + stock:
        if c not in deck:
            raise ValueError(f"{CODES[c]} is not in the {n}-player deck.")
        if c in seen:
            raise ValueError(f"{CODES[c]} is dealt twice.")
        seen.add(c)
    missing = [CODES[c] for c in deck if c not in seen]
    if missing:
        raise ValueError(f"The deal leaves out {', '.join(missing)}.")
    leader = deal.get("leader")
    if leader is not None and (
        not isinstance(leader, int) or isinstance(leader, bool) or not 0 <= leader < n
    ):
        raise ValueError(f"The deal's 'leader' must be a seat from 0 to {n - 1}, got {leader!r}.")
    stock.reverse()
    return hands, stock, leader


def _start_deal(state: State, hands: list[list[int]], stock: list[int], leader: int) -> None:
    n = state.options.players
    state.deal += 1
    state.phase = PLAY
    state.deal_leader = state.leader = state.turn = leader
    state.holder = state.cutting = -1
    state.hands = hands
    state.stock = stock
    state.trick = []
    state.won = [[] for _ in range(n)]
    state.captured = [0] * n


def _swap_schedule(size: int) -> tuple[tuple[int, ...], ...]:
    """Fisher-Yates positions size-1..1 grouped so each group's moduli multiply to at most 2**32."""
    groups: list[tuple[int, ...]] = []
    group: list[int] = []
    product = 1
    for i in range(size - 1, 0, -1):
        if product * (i + 1) > 1 << 32:
            groups.append(tuple(group))
            group, product = [], 1
        group.append(i)
        product *= i + 1
    return (*groups, tuple(group))


SWAP_SCHEDULES = {len(deck): _swap_schedule(len(deck)) for deck in DECKS.values()}


def _shuffle(rng: Rng, items: list[int]) -> None:
    """Fisher-Yates where one 64-bit draw serves a whole group of swaps (4 draws instead of 31 for a
    deck): dealing is most of a playout's cost. Each index is uniform to within 2**-32."""
    for group in SWAP_SCHEDULES[len(items)]:
        bits = rng.next64()
        for i in group:
            bits, j = divmod(bits, i + 1)
            items[i], items[j] = items[j], items[i]


def _shuffled_deal(state: State) -> tuple[list[list[int]], list[int]]:
    deck = list(DECKS[state.options.players])
    _shuffle(state.rng, deck)
    hands = [deck[i : i + HAND_SIZE] for i in range(0, state.options.players * HAND_SIZE, HAND_SIZE)]
    return hands, deck[state.options.players * HAND_SIZE :]


def _trick_won(state: State, reason: str) -> list[Event]:
    state.phase = TAKE
    points = sum(POINTS[c] for c in state.trick)
    return [{"type": "trick_won", "seat": state.holder, "reason": reason, "points": points}]


def _round_done(state: State) -> list[Event]:
    """Every seat has played once more: the trick ends, or the cut leader may fight on."""
    if state.holder == state.leader:
        return _trick_won(state, "kept")
    cuts = CUTS[state.cutting]
    if any(cuts[c] for c in state.hands[state.leader]):
        state.phase = CONTINUE
        return []
    return _trick_won(state, "no_cutting_card")


def _finish_deal(state: State) -> list[Event]:
    """Score the deal just emptied and decide whether the match goes on."""
    options = state.options
    points = _side_points(state)
    top = max(points)
    winner = points.index(top) if points.count(top) == 1 else -1
    for side, p in enumerate(points):
        state.totals[side] += p
    if winner >= 0:
        state.games_won[winner] += 1
    state.last_winner = winner
    events: list[Event] = [
        {
            "type": "deal_over",
            "deal": state.deal,
            "points": points,
            "winner": None if winner < 0 else winner,
            "totals": list(state.totals),
            "games_won": list(state.games_won),
        }
    ]
    kind, target = MATCHES[options.match]
    scores = state.totals if kind == "points" else state.games_won
    best = max(scores)
    if best < target:
        state.phase = DEAL_OVER
        return events
    state.phase = MATCH_OVER
    if scores.count(best) == 1:
        state.winners = _side_seats(options, scores.index(best))
    events.append({"type": "match_over", "winners": list(state.winners)})
    return events


def _take(state: State) -> list[Event]:
    """The winner gathers the trick, everyone refills from the stock in turn, the winner leads."""
    n = state.options.players
    winner = state.holder
    trick = state.trick
    points = sum(POINTS[c] for c in trick)
    events: list[Event] = [
        {"type": "took", "seat": winner, "cards": [CODES[c] for c in trick], "points": points}
    ]
    state.captured[winner] += points
    state.won[winner] += trick
    trick.clear()
    hands, stock = state.hands, state.stock
    rounds = min(HAND_SIZE - len(hands[winner]), len(stock) // n)
    order = DRAW_ORDER[n][winner]
    for _ in range(rounds):
        for seat in order:
            hands[seat].append(stock.pop())
    if rounds:
        events += [{"type": "drew", "seat": seat, "count": rounds} for seat in order]
    state.holder = state.cutting = -1
    state.leader = state.turn = winner
    if hands[winner]:
        state.phase = PLAY
        return events
    return events + _finish_deal(state)


def _next_leader(state: State) -> int:
    options = state.options
    n = options.players
    if options.lead == "winner" and state.last_winner >= 0:
        seats = _side_seats(options, state.last_winner)
        return next(s for s in DRAW_ORDER[n][NEXT[n][state.deal_leader]] if s in seats)
    return NEXT[n][state.deal_leader]


def _int_field(data: dict, key: str, low: int, high: int) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"State field {key!r} must be an integer from {low} to {high}, got {value!r}.")
    return value


def _int_list(data: dict, key: str, length: int) -> list[int]:
    value = data.get(key)
    if (
        not isinstance(value, list)
        or len(value) != length
        or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value)
    ):
        raise ValueError(f"State field {key!r} must be a list of {length} non-negative integers.")
    return list(value)


def _code_lists(data: dict, key: str, length: int) -> list[list[int]]:
    value = data.get(key)
    if not isinstance(value, list) or len(value) != length:
        raise ValueError(f"State field {key!r} must be a list of {length} lists of card codes.")
    return [parse_codes(v) for v in value]


# --- The rulebook: what the seat to act may do, asked by legal_actions and apply ----------------------


def _playable(state: State) -> list[int]:
    """The cards the seat to act may play now: any card of its hand while a trick goes round, only
    a cutting card when the leader fights on, none while the trick waits to be taken."""
    phase = state.phase
    if phase == PLAY:
        return state.hands[state.turn]
    if phase == CONTINUE:
        cuts = CUTS[state.cutting]
        return [c for c in state.hands[state.leader] if cuts[c]]
    return []


def _other(state: State) -> Action | None:
    """The one action besides a card open now: the leader may end the trick instead of fighting
    on; a trick won must be taken by its winner."""
    phase = state.phase
    if phase == CONTINUE:
        return END
    return TAKE_TRICK if phase == TAKE else None


def _refusal(state: State, action: object) -> IllegalAction | None:
    """Why the seat to act may not take ``action`` now, or None when it may: the rulebook's verdict
    (``_playable``, ``_other``), with the rule broken said in a player's words."""
    phase = state.phase
    if phase == MATCH_OVER:
        return IllegalAction(gettext_noop("The match is over."))
    if phase == DEAL_OVER:
        return IllegalAction(gettext_noop("This deal is over: wait for the next one."))
    if not isinstance(action, Action) or action.type not in ("play", "end", "take") or action.suit >= 0:
        return IllegalAction(gettext_noop("That is not a Șeptică move."))
    kind = action.type
    if kind == "play" and action.card in _playable(state):
        return None
    if action == _other(state):
        return None
    # Why not: a trick to take first, then what "take" and "end" need, then the card.
    if phase == TAKE:
        return IllegalAction(gettext_noop("The trick is over: the winner must take it."))
    if kind == "take":
        if phase == CONTINUE:
            return IllegalAction(gettext_noop("Continue with a cutting card or end the trick first."))
        if not state.trick:
            return IllegalAction(gettext_noop("There is no trick to take yet: lead a card."))
        return IllegalAction(gettext_noop("The trick is not over yet: play a card."))
    if kind == "end":
        if state.turn != state.leader:
            return IllegalAction(gettext_noop("Only the player who led can continue or end."))
        return IllegalAction(gettext_noop("There is no trick to end yet: lead a card."))
    if phase == CONTINUE and action.card in state.hands[state.leader]:
        return _cut_hint(state.cutting)
    return IllegalAction(gettext_noop("You do not hold that card."))


class TrickCard(TypedDict):
    """One card of the trick on the table, in the order it was played."""

    seat: int
    """Who played it."""
    card: str
    """Its code (``"10H"``)."""
    cuts: bool
    """It took the trick over when played: the lead, or a card of the led rank or a seven."""


class OptionsJSON(TypedDict):
    """A table's options as they cross JSON (``Options`` field by field)."""

    players: int
    """2, 3 or 4 (four play as two teams: seats 0 and 2 against 1 and 3)."""
    match: str
    """When the match ends: ``points8``/``points21`` (a side's total), ``games1``..``games3`` (deals won)."""
    lead: str
    """Who leads each new deal: ``rotate`` (one seat on) or ``winner`` (the last deal's winner)."""


class ClassicView(TypedDict):
    """What one seat (or a spectator) may know of a match: ``Classic.view``. Cards are codes
    (``"10H"``), seats are 0-based, sides are indices into ``teams``."""

    game: str
    """Always ``"classic"``."""
    options: OptionsJSON
    """The table's options."""
    seat: int | None
    """Whose view this is; None for a spectator."""
    deal: int
    """The current (or just finished) deal, from 1."""
    teams: list[list[int]]
    """The seats of each side: one seat per side, or two teams of two with four players."""
    hand: list[str] | None
    """This seat's cards in the order they came; None for a spectator."""
    hand_counts: list[int]
    """How many cards each seat holds."""
    stock_count: int
    """Cards left in the stock (the stock itself is never shown)."""
    trick: list[TrickCard]
    """The trick on the table, in play order; empty between tricks."""
    cutting_rank: str | None
    """The rank that cuts this trick (the lead's; a seven always cuts); None with no trick."""
    holder: int | None
    """The seat holding the trick (the last to cut it); None with no trick."""
    leader: int
    """The seat that led this trick (or leads the next)."""
    to_act: int | None
    """The seat whose decision it is; None between deals and after the match."""
    awaiting: str | None
    """What ``to_act`` must do: ``play``, ``continue`` (the leader fights on or ends) or ``take``;
    None between deals and after the match."""
    legal: list[ActionJSON]
    """The actions this seat may take now, in their JSON form; empty unless it is to act."""
    captured: list[int]
    """The tens and aces each seat has taken this deal."""
    deal_points: list[int]
    """This deal's points per side so far."""
    deal_over: bool
    """The deal is finished (awaiting the next one, or the match is over)."""
    deal_winner: int | None
    """Once the deal is over, the side with the most points; None while it is on or on a tie."""
    totals: list[int]
    """Each side's points over the match."""
    games_won: list[int]
    """Deals each side has won over the match."""
    match_over: bool
    """The match format's target is reached: the match is over."""
    winners: list[int]
    """Once the match is over, the winning side's seats; empty otherwise (and on a tie)."""


class Classic:
    """The classic game's rules behind the ``core.Game`` protocol."""

    name = "classic"

    # ----------------------------------------------------------------- options and lifecycle

    def options_from_json(self, data: dict) -> Options:
        if not isinstance(data, dict):
            raise ValueError("Options must be a JSON object.")
        unknown = sorted(set(data) - {"players", "match", "lead"})
        if unknown:
            raise ValueError(
                f"Unknown classic options: {', '.join(unknown)} (expected players, match, lead)."
            )
        players = data.get("players", 2)
        if type(players) is not int or players not in (2, 3, 4):
            raise ValueError(f"'players' must be 2, 3 or 4, got {players!r}.")
        match = data.get("match", "points8")
        if not isinstance(match, str) or match not in MATCHES:
            raise ValueError(f"'match' must be one of {', '.join(MATCHES)}, got {match!r}.")
        lead = data.get("lead", "rotate")
        if lead not in LEADS:
            raise ValueError(f"'lead' must be 'rotate' or 'winner', got {lead!r}.")
        return Options(players, match, lead)

    def options_to_json(self, options: Options) -> OptionsJSON:
        return {"players": options.players, "match": options.match, "lead": options.lead}

    def new_match(self, options: Options, seed: int, deal: dict | None = None) -> State:
        if not isinstance(options, Options):
            raise ValueError("new_match needs classic Options (see options_from_json).")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"The seed must be an integer, got {seed!r}.")
        n = options.players
        state = State(options, Rng(seed))
        if deal is None:
            leader = state.rng.below(n)
            hands, stock = _shuffled_deal(state)
        else:
            hands, stock, given = _parse_deal(deal, n)
            leader = state.rng.below(n) if given is None else given
        _start_deal(state, hands, stock, leader)
        return state

    def next_round(self, state: State, deal: dict | None = None) -> list[Event]:
        if state.phase != DEAL_OVER:
            raise IllegalAction(
                gettext_noop("The match is over.")
                if state.phase == MATCH_OVER
                else gettext_noop("The deal is not over yet.")
            )
        leader = _next_leader(state)
        if deal is None:
            hands, stock = _shuffled_deal(state)
        else:
            hands, stock, given = _parse_deal(deal, state.options.players)
            if given is not None:
                leader = given
        _start_deal(state, hands, stock, leader)
        return [{"type": "dealt", "deal": state.deal, "leader": leader, "stock_count": len(stock)}]

    def round_number(self, state: State) -> int:
        return state.deal

    def awaiting_deal(self, state: State) -> bool:
        return state.phase == DEAL_OVER

    def is_over(self, state: State) -> bool:
        return state.phase == MATCH_OVER

    def to_act(self, state: State) -> int | None:
        phase = state.phase
        if phase == PLAY:
            return state.turn
        if phase == CONTINUE:
            return state.leader
        if phase == TAKE:
            return state.holder
        return None

    # ----------------------------------------------------------------- rules

    def legal_actions(self, state: State) -> list[Action]:
        """The rulebook's answers listed: every playable card in hand order, then the other
        action open, if any."""
        actions = [PLAYS[c] for c in _playable(state)]
        other = _other(state)
        if other is not None:
            actions.append(other)
        return actions

    def refusal(self, state: State, action: Action) -> IllegalAction | None:
        return _refusal(state, action)

    def apply(self, state: State, action: Action) -> list[Event]:
        refusal = _refusal(state, action)
        if refusal is not None:
            raise refusal
        phase = state.phase
        kind = action.type
        if phase == TAKE:
            return _take(state)
        leader = state.leader
        card = action.card
        if phase == CONTINUE:
            if kind == "end":
                return [{"type": "ended", "seat": leader}, *_trick_won(state, "ended")]
            hand = state.hands[leader]
            hand.remove(card)
            state.trick.append(card)
            state.holder = leader
            state.turn = NEXT[state.options.players][leader]
            state.phase = PLAY
            return [
                {"type": "continued", "seat": leader},
                {"type": "played", "seat": leader, "card": CODES[card], "cuts": True},
            ]
        seat = state.turn
        hand = state.hands[seat]
        hand.remove(card)
        trick = state.trick
        trick.append(card)
        if len(trick) == 1:
            state.cutting = card >> 2
            state.holder = seat
            cuts = True
        else:
            cuts = CUTS[state.cutting][card]
            if cuts:
                state.holder = seat
        events: list[Event] = [{"type": "played", "seat": seat, "card": CODES[card], "cuts": cuts}]
        state.turn = NEXT[state.options.players][seat]
        if state.turn == leader:
            events += _round_done(state)
        return events

    def out_of_turn_reason(self, state: State, seat: int, action: object) -> str | None:
        """What ``core.act`` tells a seat acting out of turn, when something says it better than
        "It is not your turn." (who may take, continue or end is part of the rules): a marked
        template without params."""
        phase = state.phase
        if phase == DEAL_OVER:
            return gettext_noop("This deal is over: wait for the next one.")
        if not isinstance(action, Action):
            return None
        if phase == TAKE:
            return (
                gettext_noop("Only the trick's winner takes it.")
                if action is TAKE_TRICK
                else gettext_noop("The trick is over: the winner must take it.")
            )
        if action is END and seat != state.leader:
            return gettext_noop("Only the player who led can continue or end.")
        return None

    # ----------------------------------------------------------------- what each seat sees

    def view(self, state: State, seat: int | None) -> ClassicView:
        options = state.options
        n = options.players
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n):
            raise ValueError(f"Seat must be None or 0..{n - 1}, got {seat!r}.")
        to_act = self.to_act(state)
        cuts = CUTS[state.cutting] if state.cutting >= 0 else ()
        over = state.phase >= DEAL_OVER
        points = _side_points(state)
        top = max(points)
        return {
            "game": self.name,
            "options": self.options_to_json(options),
            "seat": seat,
            "deal": state.deal,
            "teams": [_side_seats(options, side) for side in range(options.sides)],
            "hand": None if seat is None else [CODES[c] for c in state.hands[seat]],
            "hand_counts": [len(h) for h in state.hands],
            "stock_count": len(state.stock),
            "trick": [
                {"seat": (state.leader + i) % n, "card": CODES[c], "cuts": i == 0 or cuts[c]}
                for i, c in enumerate(state.trick)
            ],
            "cutting_rank": RANKS[state.cutting] if state.cutting >= 0 else None,
            "holder": state.holder if state.holder >= 0 else None,
            "leader": state.leader,
            "to_act": to_act,
            "awaiting": AWAITING[state.phase],
            "legal": [self.action_to_json(a) for a in self.legal_actions(state)] if seat == to_act else [],
            "captured": list(state.captured),
            "deal_points": points,
            "deal_over": over,
            "deal_winner": points.index(top) if over and points.count(top) == 1 else None,
            "totals": list(state.totals),
            "games_won": list(state.games_won),
            "match_over": state.phase == MATCH_OVER,
            "winners": list(state.winners),
        }

    def scenario_report(self, state: State) -> dict:
        return {
            "deal": state.deal,
            "to_act": self.to_act(state),
            "legal": sorted_action_json(self, self.legal_actions(state)),
            "hands": [[CODES[c] for c in h] for h in state.hands],
            "stock_count": len(state.stock),
            "trick": [CODES[c] for c in state.trick],
            "cutting_rank": RANKS[state.cutting] if state.cutting >= 0 else None,
            "holder": state.holder if state.holder >= 0 else None,
            "leader": state.leader,
            "awaiting": AWAITING[state.phase],
            "captured": list(state.captured),
            "deal_over": state.phase >= DEAL_OVER,
            "deal_points": _side_points(state),
            "totals": list(state.totals),
            "games_won": list(state.games_won),
            "match_over": state.phase == MATCH_OVER,
            "winners": list(state.winners),
        }

    # ----------------------------------------------------------------- serialisation

    def state_to_json(self, state: State) -> dict:
        return {
            "options": self.options_to_json(state.options),
            "rng": state.rng.state,
            "deal": state.deal,
            "phase": PHASES[state.phase],
            "deal_leader": state.deal_leader,
            "leader": state.leader,
            "turn": state.turn,
            "holder": state.holder if state.holder >= 0 else None,
            "cutting_rank": RANKS[state.cutting] if state.cutting >= 0 else None,
            "hands": [[CODES[c] for c in h] for h in state.hands],
            "stock": [CODES[c] for c in reversed(state.stock)],
            "trick": [CODES[c] for c in state.trick],
            "won": [[CODES[c] for c in w] for w in state.won],
            "totals": list(state.totals),
            "games_won": list(state.games_won),
            "last_winner": state.last_winner if state.last_winner >= 0 else None,
            "winners": list(state.winners),
        }

    def state_from_json(self, data: dict) -> State:
        if not isinstance(data, dict):
            raise ValueError("A classic state must be a JSON object.")
        options = self.options_from_json(data.get("options"))
        n, sides = options.players, options.sides
        rng = data.get("rng")
        if not isinstance(rng, int) or isinstance(rng, bool) or not 0 <= rng < 1 << 64:
            raise ValueError("State field 'rng' must be a 64-bit unsigned integer.")
        state = State(options, Rng(rng))
        if data.get("phase") not in PHASES:
            raise ValueError(f"State field 'phase' must be one of {', '.join(PHASES)}.")
        state.phase = PHASES.index(data["phase"])
        state.deal = _int_field(data, "deal", 1, 1 << 62)
        state.deal_leader = _int_field(data, "deal_leader", 0, n - 1)
        state.leader = _int_field(data, "leader", 0, n - 1)
        state.turn = _int_field(data, "turn", 0, n - 1)
        state.holder = -1 if data.get("holder") is None else _int_field(data, "holder", 0, n - 1)
        rank = data.get("cutting_rank")
        if rank is not None and (rank not in RANKS or RANKS.index(rank) < SEVEN):
            raise ValueError(f"State field 'cutting_rank' must be a rank from 7 to A or null, got {rank!r}.")
        state.cutting = -1 if rank is None else RANKS.index(rank)
        state.hands = _code_lists(data, "hands", n)
        state.stock = parse_codes(data.get("stock"))[::-1]
        state.trick = parse_codes(data.get("trick"))
        state.won = _code_lists(data, "won", n)
        state.captured = [sum(POINTS[c] for c in w) for w in state.won]
        state.totals = _int_list(data, "totals", sides)
        state.games_won = _int_list(data, "games_won", sides)
        last = data.get("last_winner")
        state.last_winner = -1 if last is None else _int_field(data, "last_winner", 0, sides - 1)
        winners = data.get("winners")
        if not isinstance(winners, list) or any(type(w) is not int or w not in range(n) for w in winners):
            raise ValueError("State field 'winners' must be a list of seats.")
        state.winners = list(winners)
        cards = sorted(c for group in (*state.hands, state.stock, state.trick, *state.won) for c in group)
        if cards != sorted(DECKS[n]):
            raise ValueError(f"The state's cards are not exactly the {n}-player deck.")
        if (state.holder < 0 or state.cutting < 0) != (not state.trick):
            raise ValueError("A trick on the table needs a holder and a cutting rank, and only then.")
        return state

    def clone(self, state: State) -> State:
        copy = State.__new__(State)
        copy.options = state.options
        copy.rng = Rng(state.rng.state)
        copy.deal = state.deal
        copy.phase = state.phase
        copy.deal_leader = state.deal_leader
        copy.leader = state.leader
        copy.turn = state.turn
        copy.holder = state.holder
        copy.cutting = state.cutting
        copy.hands = [h[:] for h in state.hands]
        copy.stock = state.stock[:]
        copy.trick = state.trick[:]
        copy.won = [w[:] for w in state.won]
        copy.captured = state.captured[:]
        copy.totals = state.totals[:]
        copy.games_won = state.games_won[:]
        copy.last_winner = state.last_winner
        copy.winners = state.winners[:]
        return copy

    def action_to_json(self, action: Action) -> ActionJSON:
        return action_to_json(action)

    def action_from_json(self, data: dict) -> Action:
        return ACTIONS.from_json(data)

    # ----------------------------------------------------------------- search fast path

    def playout(
        self, state: State, rng: random.Random, policy: str = "random", record: list | None = None
    ) -> int:
        """Finish the current deal in place, fast: the same rules as ``apply`` on local variables,
        without events or checks. ``record``, when given, receives every action chosen, so a test
        can replay them through ``apply`` and compare."""
        if policy not in POLICIES:
            raise ValueError(f"Unknown policy {policy!r}: expected one of {', '.join(POLICIES)}.")
        phase = state.phase
        if phase >= DEAL_OVER:
            return 0
        always_continue = policy == "rollout"
        rand = rng.random
        n = state.options.players
        nxt = NEXT[n]
        draw_order = DRAW_ORDER[n]
        hands, stock, trick, won, captured = state.hands, state.stock, state.trick, state.won, state.captured
        leader, turn, holder, cutting = state.leader, state.turn, state.holder, state.cutting
        cuts = CUTS[cutting] if cutting >= 0 else ()
        draw = stock.pop
        decisions = 0
        while True:
            if phase == PLAY:
                if not trick:
                    hand = hands[leader]
                    card = hand.pop(int(rand() * len(hand)))
                    trick.append(card)
                    if record is not None:
                        record.append(PLAYS[card])
                    cutting = card >> 2
                    cuts = CUTS[cutting]
                    holder = leader
                    turn = nxt[leader]
                    decisions += 1
                while turn != leader:
                    hand = hands[turn]
                    card = hand.pop(int(rand() * len(hand)))
                    trick.append(card)
                    if record is not None:
                        record.append(PLAYS[card])
                    if cuts[card]:
                        holder = turn
                    turn = nxt[turn]
                    decisions += 1
                phase = TAKE
                if holder != leader:
                    for card in hands[leader]:
                        if cuts[card]:
                            phase = CONTINUE
                            break
            elif phase == CONTINUE:
                hand = hands[leader]
                choices = [c for c in hand if cuts[c]]
                k = len(choices)
                pick = int(rand() * (k if always_continue else k + 1))
                decisions += 1
                if pick == k:
                    phase = TAKE
                    if record is not None:
                        record.append(END)
                else:
                    card = choices[pick]
                    hand.remove(card)
                    trick.append(card)
                    if record is not None:
                        record.append(PLAYS[card])
                    holder = leader
                    turn = nxt[leader]
                    phase = PLAY
            else:
                decisions += 1
                if record is not None:
                    record.append(TAKE_TRICK)
                points = 0
                for card in trick:
                    points += POINTS[card]
                captured[holder] += points
                won[holder] += trick
                trick.clear()
                leader = turn = holder
                rounds = len(stock) // n
                need = HAND_SIZE - len(hands[leader])
                if need < rounds:
                    rounds = need
                for _ in range(rounds):
                    for seat in draw_order[leader]:
                        hands[seat].append(draw())
                holder = cutting = -1
                phase = PLAY
                if not hands[leader]:
                    break
        state.leader, state.turn, state.holder, state.cutting = leader, turn, holder, cutting
        _finish_deal(state)
        return decisions


GAME = Classic()
