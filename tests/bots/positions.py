"""Positions for the bot tests: matches played by bots to a random point, with their history."""

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bots.policies import choose
from gameplay.engine import get_game
from gameplay.engine.cards import CODES


@dataclass
class Position:
    game: Any
    state: Any
    history: list[dict]  # the public events of the current round/deal

    @property
    def seat(self) -> int:
        return self.game.to_act(self.state)

    def view(self) -> dict:
        return self.game.view(self.state, self.seat)

    def legal(self) -> list[dict]:
        return [self.game.action_to_json(a) for a in self.game.legal_actions(self.state)]


def random_positions(
    game_name: str, players: int, count: int, seed: int = 0, levels: tuple[str, ...] = ("easy", "normal")
) -> Iterator[Position]:
    """``count`` positions with a choice to make, reached by bots of ``levels`` (picked at random
    for each move), some in round/deal 1 and some later."""
    game = get_game(game_name)
    rng = random.Random(f"{game_name}:{players}:{seed}")
    made = 0
    while made < count:
        state = game.new_match(game.options_from_json({"players": players}), rng.randrange(1 << 30))
        history: list[dict] = []
        for _ in range(rng.randrange(1, 160)):
            if game.is_over(state):
                break
            if game.awaiting_deal(state):
                history = game.next_round(state)
                continue
            position = Position(game, state, history)
            level = rng.choice(levels)
            action = choose(position.view(), position.legal(), level, rng)
            history += game.apply(state, game.action_from_json(action))
        if game.to_act(state) is not None and len(game.legal_actions(state)) > 1:
            made += 1
            yield Position(game, state, history)


def hidden_shuffled(position: Position, rng: random.Random) -> Any:
    """The same position with the cards its seat cannot see (other hands, the stock) dealt
    again among themselves: the seat's view does not change."""
    game, seat = position.game, position.seat
    data = game.state_to_json(position.state)
    hidden = [c for s, hand in enumerate(data["hands"]) if s != seat for c in hand] + data["stock"]
    rng.shuffle(hidden)
    for s, hand in enumerate(data["hands"]):
        if s != seat:
            data["hands"][s] = hidden[: len(hand)]
            del hidden[: len(hand)]
    data["stock"] = hidden
    data["rng"] = rng.getrandbits(64)
    return game.state_from_json(data)


def americana_state(
    hands: list[list[str]],
    pile: list[str],
    *,
    suit: str | None = None,
    owed: int = 0,
    skip: bool = False,
    to_act: int = 0,
) -> Any:
    """An Americana state (default options) with these hands and pile; the rest of the deck is
    the stock in a fixed order, and the suit in force is the top's unless a seven named one."""
    game = get_game("americana")
    players = len(hands)
    used = {c for hand in hands for c in hand} | set(pile)
    stock = [c for c in CODES[:52] if c not in used]
    return game.state_from_json(
        {
            "game": "americana",
            "options": {"players": players},
            "rng": 1,
            "round": 1,
            "dealer": (to_act - 1) % players,
            "phase": "playing",
            "to_act": to_act,
            "hands": hands,
            "stock": stock,
            "pile": pile,
            "suit": suit or pile[-1][-1],
            "owed": owed,
            "skip": skip,
            "passes": 0,
            "totals": [0] * players,
            "charges": None,
            "out": None,
        }
    )


def classic_match(hands: list[list[str]], *, leader: int = 0, stock: list[str] | None = None) -> Any:
    """A classic match (default options) dealt with these hands; the stock is ``stock`` (top first)
    when given, else the rest of the deck in a fixed order."""
    game = get_game("classic")
    players = len(hands)
    options = game.options_from_json({"players": players})
    used = {c for hand in hands for c in hand}
    deck = [c for c in CODES[20:52] if not (players == 3 and c in ("8S", "8C"))]
    rest = [c for c in deck if c not in used]
    return game.new_match(
        options, 1, {"hands": hands, "stock": rest if stock is None else stock, "leader": leader}
    )


def classic_state(
    hands: list[list[str]], trick: list[str], *, leader: int, won: list[list[str]], phase: str = "play"
) -> Any:
    """A classic state with an empty stock: these hands and trick (led by ``leader``), and
    ``won`` (every other card of the deck) as the tricks already taken."""
    game = get_game("classic")
    players = len(hands)
    cutting = trick[0][:-1] if trick else None
    holder = None
    for index, c in enumerate(trick):
        if index == 0 or c[:-1] in (cutting, "7"):
            holder = (leader + index) % players
    return game.state_from_json(
        {
            "options": {"players": players},
            "rng": 1,
            "deal": 1,
            "phase": phase,
            "deal_leader": leader,
            "leader": leader,
            "turn": (leader + len(trick)) % players,
            "holder": holder,
            "cutting_rank": cutting,
            "hands": hands,
            "stock": [],
            "trick": trick,
            "won": won,
            "totals": [0] * (2 if players == 4 else players),
            "games_won": [0] * (2 if players == 4 else players),
            "last_winner": None,
            "winners": [],
        }
    )
