"""Classic Șeptică players: what each level does with a seat's view.

Only tens and aces score, a seven cuts anything, and the leader decides whether a lost trick
is fought on, so the heuristics revolve around the points on the table and the cutting cards.
"""

import random
from typing import Any

from gameplay.engine import get_game
from gameplay.engine.cards import ACE, RANKS, SEVEN, TEN, card, code

from .search import Cost, Search

GAME = get_game("classic")

# Calibrated with the arena on a 2-core server (budget against measured decision times).
COST = Cost(sample=60e-6, playout=21e-6, decision=1.0e-6)

DECK = {
    2: list(range(SEVEN * 4, 52)),
    4: list(range(SEVEN * 4, 52)),
    3: [c for c in range(SEVEN * 4, 52) if code(c) not in ("8S", "8C")],
}


def is_point(c: int) -> bool:
    return c >> 2 in (TEN, ACE)


def _side(view: dict, seat: int) -> int:
    return next(i for i, seats in enumerate(view["teams"]) if seat in seats)


# --- easy ---------------------------------------------------------------------------------------------


def easy(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """A beginner: any legal action, at random."""
    return legal[rng.randrange(len(legal))]


# --- normal -------------------------------------------------------------------------------------------


def _lead(hand: list[int]) -> int:
    """Lead a rank held several times (to cut back if cut), never points or a seven when avoidable."""

    def worth(c: int) -> tuple[int, int]:
        copies = sum(1 for h in hand if h >> 2 == c >> 2)
        sevens = sum(1 for h in hand if h >> 2 == SEVEN)
        return (3 * (copies + sevens) - 6 * is_point(c) - 10 * (c >> 2 == SEVEN), -c)

    return max(hand, key=worth)


def _follow(view: dict, hand: list[int], cutting: int, ours: bool) -> int:
    """Give points to a trick the own side holds; take one that has points; else throw cheaply."""
    on_table = sum(is_point(card(t["card"])) for t in view["trick"])
    plain = [c for c in hand if c >> 2 not in (cutting, SEVEN)]
    cutters = [c for c in hand if c >> 2 == cutting]
    sevens = [c for c in hand if c >> 2 == SEVEN]
    if ours:
        gifts = [c for c in hand if is_point(c)]
        if gifts:
            return gifts[0]
        return min(plain or cutters or sevens, key=lambda c: c >> 2)
    late = view["stock_count"] == 0
    if on_table and cutters:
        return cutters[0]
    if sevens and (on_table >= 2 or (on_table and late)):
        return sevens[0]
    throw = [c for c in plain if not is_point(c)]
    if throw:
        return min(throw, key=lambda c: c >> 2)
    if cutters:
        return cutters[0]  # only points left to throw: take the trick instead
    return (plain or sevens)[0]


def normal(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """A sound club player: cuts when tens or aces lie on the table, feeds points to a partner who
    holds the trick, keeps its sevens for tricks worth them, and ends a trick not worth a fight."""
    if len(legal) == 1:
        return legal[0]
    me = view["seat"]
    hand = [card(c) for c in view["hand"]]
    if not view["trick"]:
        chosen = _lead(hand)
    else:
        cutting = RANKS.index(view["cutting_rank"])
        ours = _side(view, view["holder"]) == _side(view, me)
        if view["awaiting"] == "continue":
            on_table = sum(is_point(card(t["card"])) for t in view["trick"])
            cutters = [card(a["card"]) for a in legal if a["type"] == "play"]
            plain = [c for c in cutters if c >> 2 != SEVEN]
            late = view["stock_count"] == 0
            if ours or not on_table or not (plain or on_table >= 2 or late):
                return next(a for a in legal if a["type"] == "end")
            chosen = (plain or cutters)[0]
        else:
            chosen = _follow(view, hand, cutting, ours)
    return next(a for a in legal if a.get("card") == code(chosen))


# --- hard ---------------------------------------------------------------------------------------------


def _taken(view: dict, history: list[dict]) -> list[list[int]] | None:
    """The cards each seat has taken this deal, from the public "took" events, or None when the
    history does not match the view (partial, or from another deal)."""
    start = max((i for i, e in enumerate(history) if e.get("type") == "dealt"), default=-1)
    won: list[list[int]] = [[] for _ in view["hand_counts"]]
    try:
        if start >= 0 and history[start]["deal"] != view["deal"]:
            return None
        for event in history[start + 1 :]:
            if event.get("type") == "took":
                won[event["seat"]] += [card(c) for c in event["cards"]]
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if [sum(map(is_point, w)) for w in won] != view["captured"]:
        return None
    return won


class Sampler:
    """Full states consistent with a seat's view: the other hands and the stock drawn from the
    unseen cards, and, without a history, which of them were already taken (the scores say how
    many tens and aces each seat took)."""

    def __init__(self, view: dict, won: list[list[int]] | None) -> None:
        self.me = view["seat"]
        self.view = view
        self.counts = view["hand_counts"]
        trick = [card(t["card"]) for t in view["trick"]]
        seen = {card(c) for c in view["hand"]} | set(trick)
        hidden = sum(self.counts) - self.counts[self.me] + view["stock_count"]
        unseen = [c for c in DECK[len(self.counts)] if c not in seen]
        if won is not None:
            out = {c for w in won for c in w}
            if len(unseen) - len(out) != hidden:
                won = None  # the history's tricks do not add up with the view: ignore them
            else:
                unseen = [c for c in unseen if c not in out]
        self.won = won
        self.points = [c for c in unseen if is_point(c)]
        self.blanks = [c for c in unseen if not is_point(c)]
        self.gone = len(unseen) - hidden  # cards already taken that the seat cannot place (0 with history)
        phase = view["awaiting"]
        self.template = {
            "options": view["options"],
            "deal": view["deal"],
            "phase": phase,
            "deal_leader": view["leader"],
            "leader": view["leader"],
            "turn": view["to_act"] if phase == "play" else view["leader"],
            "holder": view["holder"],
            "cutting_rank": view["cutting_rank"],
            "trick": [t["card"] for t in view["trick"]],
            "totals": view["totals"],
            "games_won": view["games_won"],
            "last_winner": None,
            "winners": [],
        }

    def __call__(self, rng: random.Random) -> Any:
        captured = self.view["captured"]
        if self.won is None:
            points, blanks = self.points[:], self.blanks[:]
            rng.shuffle(points)
            rng.shuffle(blanks)
            taken = sum(captured)
            won: list[list[int]] = [[] for _ in captured]
            for seat, count in enumerate(captured):
                won[seat] = points[:count]
                del points[:count]
            won[self.me] += blanks[: self.gone - taken]
            pool = points + blanks[self.gone - taken :]
        else:
            won = self.won
            pool = self.points + self.blanks
        rng.shuffle(pool)
        hands = []
        for seat, count in enumerate(self.counts):
            if seat == self.me:
                hands.append(self.view["hand"])
            else:
                hands.append([code(c) for c in pool[:count]])
                del pool[:count]
        state = dict(self.template)
        state["rng"] = rng.getrandbits(64)
        state["hands"] = hands
        state["stock"] = [code(c) for c in pool]
        state["won"] = [[code(c) for c in w] for w in won]
        return GAME.state_from_json(state)


def search(view: dict, legal: list[dict], rng: random.Random, history: list[dict] | None) -> Search:
    """What the hard player and a review judge actions by: deals sampled from what the seat knows, each
    action played out to the deal's end at random and scored by my side's tens and aces less the
    others' mean. ``legal`` comes back with the normal player's pick first, so it wins ties."""
    mine = _side(view, view["seat"])
    sides = len(view["teams"])
    won = None if history is None else _taken(view, history)
    sampler = Sampler(view, won)

    def score(state: Any) -> float:
        points = GAME.view(state, None)["deal_points"]
        return points[mine] - (sum(points) - points[mine]) / (sides - 1)

    favourite = normal(view, legal, rng)
    ordered = [favourite, *(a for a in legal if a is not favourite)]
    actions = [GAME.action_from_json(a) for a in ordered]

    def evaluate(base: Any, index: int, rng: random.Random) -> tuple[float, int]:
        state = GAME.clone(base)
        GAME.apply(state, actions[index])
        decisions = GAME.playout(state, rng, "random")
        return score(state), decisions

    return Search(ordered, sampler, evaluate, COST)
