"""Every refusal the engines can raise is translatable: its template is marked for makemessages and
its params render back to the English ``str(error)`` that the scenario runner and tests print."""

import ast
import contextlib
import json
import random
from pathlib import Path

import pytest

from gameplay.engine import GAME_NAMES, americana, classic, get_game
from gameplay.engine.cards import CODES, SUITS
from gameplay.engine.core import CardRef, IllegalAction, OneOf, SuitRef, act, render_reason
from gameplay.engine.replay import ReplayError, replay
from gameplay.engine.step import step
from tests.engine.helpers import scenario_files

ENGINE = Path(americana.__file__).parent
# One action of each kind: out of turn, or between deals, only the kind matters.
KINDS = {
    "americana": [americana.DRAW, americana.TAKE, americana.SIT_OUT, americana.play_action(0)],
    "classic": [classic.END, classic.TAKE_TRICK, classic.PLAYS[min(classic.PLAYS)]],
}
RANDOM_MATCHES = [
    ("americana", {"players": 2, "jokers": True, "jack_draws_two": True}, 1),
    ("americana", {"players": 3, "court_follows": True}, 2),
    ("americana", {"players": 4, "jokers": True}, 3),
    *(
        ("classic", {"players": players, "lead": "winner"}, seed)
        for players in (2, 3, 4)
        for seed in range(4)
    ),
]
REPLAY_FAILURES = [  # a record that cannot start, or whose first action is no action of the game
    ("poker", {}, 0, []),
    ("classic", {"players": 9}, 0, []),
    ("classic", {}, -1, []),
    ("classic", {}, 0, [{"type": "fly"}]),
]
HANDS = [["7S", "7D", "9H", "10H"], ["7H", "8S", "9S", "10S"]]
SEVEN_CUT_BY_A_SEVEN = {  # the leader, holding another seven, may continue only with it
    "game": "classic",
    "deals": [
        {
            "leader": 0,
            "hands": HANDS,
            "stock": [CODES[c] for c in classic.DECKS[2] if CODES[c] not in HANDS[0] + HANDS[1]],
        }
    ],
    "actions": [{"seat": 0, "type": "play", "card": "7S"}, {"seat": 1, "type": "play", "card": "7H"}],
}


def marked_strings() -> set[str]:
    """Every string the engine marks with ``gettext_noop`` (a literal, or xgettext would miss it)."""
    found = set()
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "gettext_noop":
                [argument] = node.args
                assert isinstance(argument, ast.Constant) and isinstance(argument.value, str), path
                found.add(argument.value)
    return found


def candidates(game, state) -> list:
    """What the seat to act might try: every kind of action and every card (in Americana: the cards
    it holds, naming each suit or none, and an action of no known kind)."""
    if game.name == "classic":
        return [*classic.PLAYS.values(), classic.END, classic.TAKE_TRICK]
    hand = state.hands[state.to_act]
    plays = [americana.Action("play", c, s) for c in range(54) if hand >> c & 1 for s in range(-1, 4)]
    return [*KINDS["americana"], americana.Action("pass"), *plays]


def probe(game, state) -> list[IllegalAction]:
    """The refusals ``state`` gives to illegal moves from every seat, a foreign object, JSON that is
    no move and an early deal (none of them changes the state)."""
    to_act = game.to_act(state)
    legal = set(game.legal_actions(state))
    attempts = [
        lambda seat=seat, action=action: act(game, state, seat, action)
        for seat in range(state.options.players)
        for action in (candidates(game, state) if seat == to_act else KINDS[game.name])
        if seat != to_act or action not in legal
    ]
    attempts.append(lambda: game.apply(state, object()))
    attempts.append(lambda: step(game, state, to_act, {"type": "play", "card": "no card"}))
    if to_act is None:
        attempts += [lambda action=action: game.apply(state, action) for action in KINDS[game.name]]
    if not game.awaiting_deal(state):
        attempts.append(lambda: game.next_round(state))
    refusals = []
    for attempt in attempts:
        try:
            attempt()
        except IllegalAction as error:
            refusals.append(error)
        else:
            raise AssertionError("a probe meant to be refused was played")
    return refusals


def scenario_states(scenario: dict):
    """The game and every state a scenario passes through, played as the scenario runner plays it."""
    game = get_game(scenario["game"])
    deals = scenario.get("deals", [])
    options = game.options_from_json(scenario.get("options", {}))
    state = game.new_match(options, scenario.get("seed", 0), deals[0] if deals else None)
    yield game, state
    for entry in scenario["actions"]:
        if game.awaiting_deal(state) and not game.is_over(state):
            index = game.round_number(state)
            game.next_round(state, deals[index] if index < len(deals) else None)
        action = game.action_from_json({key: value for key, value in entry.items() if key != "seat"})
        with contextlib.suppress(IllegalAction):
            act(game, state, entry["seat"], action)
        yield game, state


def random_states(name: str, options: dict, seed: int):
    """The game and every state of one whole random match, its end included."""
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_match(game.options_from_json(options), seed)
    while True:
        yield game, state
        if game.is_over(state):
            return
        if game.awaiting_deal(state):
            game.next_round(state)
        else:
            game.apply(state, rng.choice(game.legal_actions(state)))


@pytest.fixture(scope="module")
def refusals() -> dict[str, IllegalAction]:
    """One refusal per distinct sentence, from every scenario and a few random matches."""
    files = [path for name in GAME_NAMES for path in scenario_files(name)]
    scenarios = [json.loads(path.read_text(encoding="utf-8")) for path in files]
    sources = [scenario_states(scenario) for scenario in [*scenarios, SEVEN_CUT_BY_A_SEVEN]]
    sources += [random_states(*match) for match in RANDOM_MATCHES]
    found = {}
    for source in sources:
        for game, state in source:
            for error in probe(game, state):
                found.setdefault(str(error), error)
    return found


def pieces(error: IllegalAction) -> set[str]:
    """The strings a translation of ``error`` looks up (template and references), checking that
    rendering them untranslated gives ``str(error)`` back."""
    used = set()

    def record(message: str) -> str:
        used.add(message)
        return message

    assert render_reason(error.template, error.params, record) == str(error)
    return used


def test_references_render_todays_english():
    assert render_reason("%(card)s", {"card": CardRef("9H")}) == "the 9 of hearts"
    assert render_reason("%(card)s", {"card": CardRef("10S")}) == "the 10 of spades"
    assert render_reason("%(card)s", {"card": CardRef("QC")}) == "the queen of clubs"
    assert render_reason("%(card)s", {"card": CardRef("XR")}) == "the red joker"
    assert render_reason("%(suit)s", {"suit": SuitRef("D")}) == "diamonds"
    assert render_reason("%(x)s", {"x": OneOf(("a two",))}) == "a two"
    assert render_reason("%(x)s", {"x": OneOf(("a two", "a joker"))}) == "a two or a joker"
    assert render_reason("%(x)s", {"x": OneOf(("a two", "a jack", "a joker"))}) == "a two, a jack or a joker"


def test_an_illegal_action_keeps_its_template_and_params():
    error = IllegalAction("That card does not follow %(top)s.", top=CardRef("7D"))
    assert str(error) == "That card does not follow the 7 of diamonds."
    assert error.template == "That card does not follow %(top)s."
    assert error.params == {"top": CardRef("7D")}
    assert isinstance(error, ValueError)


def test_every_refusal_template_is_marked(refusals):
    assert {error.template for error in refusals.values()} - marked_strings() == set()


def test_every_refusal_renders_back_to_its_sentence_from_marked_pieces(refusals):
    marked = marked_strings()
    for sentence, error in refusals.items():
        assert pieces(error) <= marked, sentence
        assert sentence.endswith("."), sentence


def test_params_are_numbers_card_indices_or_references(refusals):
    for sentence, error in refusals.items():
        for value in error.params.values():
            assert isinstance(value, int | str | CardRef | SuitRef | OneOf) and not isinstance(value, bool), (
                sentence
            )


def test_every_marked_string_is_used(refusals):
    """The probes reach every refusal, and every marked card or suit name is one a reference can hold."""
    used = set().union(*map(pieces, refusals.values()))
    for failure in REPLAY_FAILURES:
        with pytest.raises(ReplayError) as refused:
            replay(*failure)
        used.add(refused.value.template)
    for code in CODES:
        used |= pieces(IllegalAction("%(card)s", card=CardRef(code)))
    for suit in SUITS:
        used |= pieces(IllegalAction("%(suit)s", suit=SuitRef(suit)))
    assert marked_strings() - used == set()


def test_the_refusals_players_meet_most(refusals):
    assert "It is not your turn." in refusals
    assert "You must take the cards you owe or answer with a two, a jack or a joker." in refusals
    assert "To continue you must cut: play a 7." in refusals
    assert any(s.startswith("That card does not follow the ") and "suit in force" in s for s in refusals)
    assert any(s.startswith("To continue you must cut: play a ") and " or a 7" in s for s in refusals)
