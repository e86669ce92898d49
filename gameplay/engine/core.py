"""What every game object offers, and the one error a rule breach raises.

The server (``gameplay.services``), the bots, the scenario runner, the
benchmark and the offline practice page all talk to a game only through this
protocol, so the two games stay interchangeable everywhere above the engine.
"""

import json
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, Protocol, TypedDict

from .cards import CODES, SUIT_INDEX, SUITS, card

Event = dict[str, Any]
"""A public happening (``{"type": "played", "seat": 1, "card": "7S", "suit": "H"}``):
JSON-able, safe to show every seat, used for the log and for animation."""


def gettext_noop(message: str) -> str:
    """Mark ``message`` for Django's ``makemessages`` and return it unchanged.

    The engine may not import Django (it also runs in the browser), so it keeps its words in
    English and marks them; the interface translates them when it shows them.
    """
    return message


SUIT_NAMES = {
    "S": gettext_noop("spades"),
    "H": gettext_noop("hearts"),
    "D": gettext_noop("diamonds"),
    "C": gettext_noop("clubs"),
}
"""A suit code's name, as a refusal says it ("the suit in force is spades")."""

# One phrase per rank, not "the %(rank)s of %(suit)s", so a language can inflect each rank as it needs.
_CARD_PHRASES = {
    "XR": gettext_noop("the red joker"),
    "XB": gettext_noop("the black joker"),
    "2": gettext_noop("the 2 of %(suit)s"),
    "3": gettext_noop("the 3 of %(suit)s"),
    "4": gettext_noop("the 4 of %(suit)s"),
    "5": gettext_noop("the 5 of %(suit)s"),
    "6": gettext_noop("the 6 of %(suit)s"),
    "7": gettext_noop("the 7 of %(suit)s"),
    "8": gettext_noop("the 8 of %(suit)s"),
    "9": gettext_noop("the 9 of %(suit)s"),
    "10": gettext_noop("the 10 of %(suit)s"),
    "J": gettext_noop("the jack of %(suit)s"),
    "Q": gettext_noop("the queen of %(suit)s"),
    "K": gettext_noop("the king of %(suit)s"),
    "A": gettext_noop("the ace of %(suit)s"),
}
_ONE_OF = gettext_noop("%(others)s or %(last)s")

Translate = Callable[[str], str]


def card_phrase(code: str, phrases: Mapping[str, str], translate: Translate) -> str:
    """A card named through ``phrases`` (a joker's code, or a rank's index, to a marked phrase with
    ``%(suit)s``), translated; shared by refusals and the interface's card labels."""
    if code in phrases:  # a joker: no rank, no suit
        return translate(phrases[code])
    return translate(phrases[code[:-1]]) % {"suit": translate(SUIT_NAMES[code[-1]])}


@dataclass(frozen=True, slots=True)
class CardRef:
    """A card named in a refusal ("the 9 of hearts"), by its code, so each language can name it."""

    code: str

    def render(self, translate: Translate) -> str:
        return card_phrase(self.code, _CARD_PHRASES, translate)


@dataclass(frozen=True, slots=True)
class SuitRef:
    """A suit named in a refusal ("spades"), by its code (S H D C)."""

    code: str

    def render(self, translate: Translate) -> str:
        return translate(SUIT_NAMES[self.code])


@dataclass(frozen=True, slots=True)
class OneOf:
    """Alternatives named in a refusal ("a two, a jack or a joker"): marked phrases, joined per language."""

    phrases: tuple[str, ...]

    def render(self, translate: Translate) -> str:
        *others, last = (translate(phrase) for phrase in self.phrases)
        return translate(_ONE_OF) % {"others": ", ".join(others), "last": last} if others else last


Param = int | str | CardRef | SuitRef | OneOf
"""What a refusal's template may be filled with: numbers and card indices as they are, the rest
as references each language renders."""


def render_reason(template: str, params: Mapping[str, Param], translate: Translate = gettext_noop) -> str:
    """A refusal's sentence: ``template`` and every reference in ``params`` passed through
    ``translate`` (by default none: the English)."""
    return translate(template) % {
        name: value.render(translate) if isinstance(value, CardRef | SuitRef | OneOf) else value
        for name, value in params.items()
    }


class IllegalAction(ValueError):
    """An action the rules do not allow now; ``str(error)`` is the English sentence for the player.

    ``template`` (English, marked with ``gettext_noop``, %-format with named params) and ``params``
    are kept so an interface can say the same in the player's language (``render_reason``).
    """

    def __init__(self, template: str, **params: Param) -> None:
        super().__init__(render_reason(template, params))
        self.template = template
        self.params = params


@dataclass(frozen=True, slots=True)
class Action:
    """One decision, the same value type in both games: ``play`` a ``card`` (in Americana a seven
    also names a ``suit``) or one of the game's other kinds (``draw``, ``take``, ``sit_out``,
    ``end``). ``card`` and ``suit`` are -1 when unused. Each game prebuilds every action it knows
    (an ``ActionSet``), so listing legal actions allocates nothing."""

    type: str
    card: int = -1
    suit: int = -1

    def __str__(self) -> str:
        if self.card < 0:
            return self.type
        named = f" {SUITS[self.suit]}" if self.suit >= 0 else ""
        return f"{self.type} {CODES[self.card]}{named}"


class ActionJSON(TypedDict):
    """An action as it crosses JSON (moves saved, frames from the page, the bots' choices)."""

    type: str
    """``play`` or one of the game's other kinds."""
    card: NotRequired[str]
    """The card code a play puts down (``"10H"``)."""
    suit: NotRequired[str]
    """The suit a seven names (``"S"``, ``"H"``, ``"D"``, ``"C"``); Americana only."""


def action_to_json(action: Action) -> ActionJSON:
    """The JSON form of an action of either game."""
    data: ActionJSON = {"type": action.type}
    if action.card >= 0:
        data["card"] = CODES[action.card]
    if action.suit >= 0:
        data["suit"] = SUITS[action.suit]
    return data


class ActionSet:
    """Every action of one game, prebuilt once, and the way back from JSON to them.

    ``kinds``: the actions other than playing a card; ``cards``: the cards that may ever be
    played; ``naming``: the cards that name a suit when played (each then exists once per suit,
    and once naming none, which is never legal but lets the rules say "name a suit").
    """

    def __init__(self, kinds: Iterable[str], cards: Iterable[int], naming: Iterable[int] = ()) -> None:
        self.kinds = {kind: Action(kind) for kind in kinds}
        self.plays = {c: Action("play", c) for c in cards}
        self.named = {c: tuple(Action("play", c, suit) for suit in range(4)) for c in naming}

    def play(self, card_: int, suit: int = -1) -> Action:
        """The prebuilt action playing ``card_`` (naming ``suit`` when it names one)."""
        return self.named[card_][suit] if suit >= 0 else self.plays[card_]

    def from_json(self, data: object) -> Action:
        """The prebuilt action for a JSON form; ``ValueError`` saying what is wrong with it."""
        if not isinstance(data, dict):
            raise ValueError(f"An action must be a JSON object, got {data!r}.")
        kind = data.get("type")
        if kind in self.kinds:
            if len(data) != 1:
                raise ValueError(f"A {kind!r} action has no other fields: {data!r}.")
            return self.kinds[kind]
        if kind != "play":
            expected = ", ".join(["play", *self.kinds])
            raise ValueError(f"Unknown action type {kind!r}: expected one of {expected}.")
        if "card" not in data or set(data) - {"type", "card", "suit"}:
            raise ValueError(f"A play has a 'card' and, for a card that names one, a 'suit': {data!r}.")
        played = card(data["card"])
        if played not in self.plays:
            raise ValueError(f"{data['card']} is not a card of this game.")
        if "suit" not in data:
            return self.plays[played]
        if played not in self.named:
            raise ValueError(f"Only a seven names a suit, and only in Americana: {data!r}.")
        suit = data["suit"]
        if suit not in SUIT_INDEX:
            raise ValueError(f"A suit is one of S, H, D, C, got {suit!r}.")
        return self.named[played][SUIT_INDEX[suit]]


class Game(Protocol):
    """A game's rules. States are plain mutable objects; ``apply`` changes them in place.

    Lifecycle: ``new_match`` deals round 1. After a round (Americana) or deal (classic)
    ends, ``awaiting_deal`` is true until ``next_round`` deals the next one, so every
    seat can look at the finished round first. ``is_over`` is true once the match ends.
    """

    name: str

    def options_from_json(self, data: dict) -> Any:
        """Validated table options; ``ValueError`` with a clear message when invalid."""
        ...

    def options_to_json(self, options: Any) -> dict: ...

    def new_match(self, options: Any, seed: int, deal: dict | None = None) -> Any:
        """A new match with round 1 dealt from the seed, or exactly as ``deal`` says
        (the scenario runner's deal JSON; ``ValueError`` when it is not a valid deal)."""
        ...

    def next_round(self, state: Any, deal: dict | None = None) -> list[Event]:
        """Deal the next round/deal; only while ``awaiting_deal(state)``."""
        ...

    def round_number(self, state: Any) -> int:
        """1-based number of the current (or just finished) round/deal."""
        ...

    def awaiting_deal(self, state: Any) -> bool: ...

    def is_over(self, state: Any) -> bool: ...

    def to_act(self, state: Any) -> int | None:
        """The seat whose decision it is, or None between rounds and after the match."""
        ...

    def legal_actions(self, state: Any) -> list[Action]:
        """Every action the seat to act may take now, in a stable order."""
        ...

    def refusal(self, state: Any, action: Action) -> IllegalAction | None:
        """Why the seat to act may not take ``action`` now (what ``apply`` would raise), or None
        when it may; changes nothing."""
        ...

    def apply(self, state: Any, action: Action) -> list[Event]:
        """Play ``action`` for the seat to act. Raises ``IllegalAction`` and changes
        nothing when the rules forbid it; otherwise returns the public events."""
        ...

    def view(self, state: Any, seat: int | None) -> Mapping[str, Any]:
        """Exactly what ``seat`` may know (None: a spectator); JSON-able. Each game returns its own
        ``TypedDict`` (``AmericanaView``, ``ClassicView``), documented field by field."""
        ...

    def state_to_json(self, state: Any) -> dict: ...

    def state_from_json(self, data: dict) -> Any: ...

    def clone(self, state: Any) -> Any: ...

    def action_to_json(self, action: Action) -> ActionJSON: ...

    def action_from_json(self, data: dict) -> Action:
        """The action for its JSON form; ``ValueError`` when malformed."""
        ...

    def playout(self, state: Any, rng: random.Random, policy: Any = "random") -> int:
        """Play the current round/deal to its end in place and return the decisions made.

        ``policy`` is "random" (uniform over legal actions), "rollout" (a random
        playable card when there is one, otherwise another legal action) or the game's
        chooser: a callable that picks one of the legal options at each decision (see
        the game's ``Chooser``), so a bot's search plays its own habits on the engine's
        rules. This is the path bots search with, so it is a tuned fast path; tests
        check it agrees with ``legal_actions``/``apply``.
        """
        ...

    def scenario_report(self, state: Any) -> dict:
        """The fields the scenario runner prints for a state (see ``script``)."""
        ...


def act(game: Game, state: Any, seat: int, action: Any) -> list[Event]:
    """Apply ``action`` on behalf of ``seat``, refusing it when it is not that seat's turn."""
    if game.is_over(state):
        raise IllegalAction(gettext_noop("The match is over."))
    if game.to_act(state) != seat:
        # A game may name the rule a move out of turn breaks ("Only the trick's winner takes it.").
        explain = getattr(game, "out_of_turn_reason", None)
        raise IllegalAction(
            (explain and explain(state, seat, action)) or gettext_noop("It is not your turn.")
        )
    return game.apply(state, action)


def sorted_action_json(game: Game, actions: list[Action]) -> list[ActionJSON]:
    """Actions in their JSON form, in the one stable order every tool prints them in."""
    return sorted((game.action_to_json(a) for a in actions), key=lambda a: json.dumps(a, sort_keys=True))


def play_refusals(game: Game, state: Any) -> dict[str, IllegalAction]:
    """Why each card the seat to act holds but may not play now may not be played, by card code:
    what ``apply`` would raise, so an interface can say it before the card is ever sent. A card that
    may be played (a seven in any suit it may name) is left out; so is everything between turns."""
    seat = game.to_act(state)
    if seat is None:
        return {}
    playable = {
        data["card"] for data in map(game.action_to_json, game.legal_actions(state)) if "card" in data
    }
    refusals = {}
    for code in game.view(state, seat)["hand"] or ():
        if code not in playable:
            refusal = game.refusal(state, game.action_from_json({"type": "play", "card": code}))
            if refusal is not None:
                refusals[code] = refusal
    return refusals
