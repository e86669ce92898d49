"""Refusals and card names in English and Romanian, from moves the engines actually refuse."""

import pytest
from django.utils import translation

from gameplay.engine import IllegalAction, get_game
from gameplay.engine.cards import CODES, SUITS
from gameplay.engine.classic import DECKS
from gameplay.engine.core import act
from gameplay.games.words import card_name, explain, suit_name
from tests.engine.test_americana_rules import deal
from tests.engine.test_reasons import marked_strings

AMERICANA = get_game("americana")
CLASSIC = get_game("classic")


def refusal(game, state, seat: int, action: dict) -> IllegalAction:
    """The engine's refusal of ``action`` (its JSON form) by ``seat``."""
    with pytest.raises(IllegalAction) as error:
        act(game, state, seat, game.action_from_json(action))
    return error.value


def americana_after(actions: list[tuple[int, dict]], hands, pile, **options):
    state = AMERICANA.new_match(
        AMERICANA.options_from_json({"players": len(hands)} | options),
        0,
        deal(hands, pile, jokers=options.get("jokers", False)),
    )
    for seat, action in actions:
        act(AMERICANA, state, seat, AMERICANA.action_from_json(action))
    return state


def americana_refusals() -> list[IllegalAction]:
    after_seven = americana_after(
        [(0, {"type": "play", "card": "7D", "suit": "C"})],
        [["7D", "9S"], ["5H", "6S"], ["KD", "10S"]],
        ["4H"],
    )
    owed = americana_after(
        [(0, {"type": "play", "card": "2H"})],
        [["2H", "9S"], ["5C", "6S"]],
        ["5H"],
        jokers=True,
        jack_draws_two=True,
    )
    return [
        refusal(AMERICANA, after_seven, 1, {"type": "play", "card": "5H"}),
        refusal(AMERICANA, owed, 1, {"type": "play", "card": "5C"}),
        refusal(AMERICANA, owed, 1, {"type": "draw"}),
        refusal(AMERICANA, owed, 0, {"type": "draw"}),
    ]


def classic_refusals() -> list[IllegalAction]:
    hands = [["KH", "7D", "9H", "10H"], ["KS", "8S", "9S", "10S"]]
    stock = [CODES[c] for c in DECKS[2] if CODES[c] not in hands[0] + hands[1]]
    state = CLASSIC.new_match(CLASSIC.options_from_json({}), 0, {"leader": 0, "hands": hands, "stock": stock})
    act(CLASSIC, state, 0, CLASSIC.action_from_json({"type": "play", "card": "KH"}))
    act(CLASSIC, state, 1, CLASSIC.action_from_json({"type": "play", "card": "KS"}))
    cut = refusal(CLASSIC, state, 0, {"type": "play", "card": "9H"})
    act(CLASSIC, state, 0, CLASSIC.action_from_json({"type": "end"}))
    return [cut, refusal(CLASSIC, state, 0, {"type": "take"})]


ENGLISH = [
    "That card does not follow the 7 of diamonds: the suit in force is clubs.",
    "You must take the cards you owe or answer with a two, a jack or a joker.",
    "You owe 2 cards: take them all or answer with a two, a jack or a joker.",
    "It is not your turn.",
    "To continue you must cut: play a K or a 7.",
    "Only the trick's winner takes it.",
]
ROMANIAN = [
    "Cartea aceasta nu merge peste șapte de romb: culoarea în vigoare este treflă.",
    "Trebuie să iei cărțile sau să răspunzi cu un doi, un valet sau un joker.",
    "Cărți de luat: 2. Ia tot sau răspunde cu un doi, un valet sau un joker.",
    "Nu este rândul tău.",
    "Ca să continui trebuie să tai: joacă K sau 7.",
    "Doar câștigătorul levatei o ia.",
]


@pytest.fixture(scope="module")
def refusals() -> list[IllegalAction]:
    return americana_refusals() + classic_refusals()


def test_english_is_the_engines_own_sentence(refusals):
    with translation.override("en"):
        assert [explain(error.template, error.params) for error in refusals] == ENGLISH
    assert [str(error) for error in refusals] == ENGLISH


def test_romanian_uses_the_players_words(refusals):
    with translation.override("ro"):
        assert [explain(error.template, error.params) for error in refusals] == ROMANIAN


@pytest.mark.parametrize(
    ("code", "english", "romanian"),
    [
        ("7H", "7 of hearts", "șapte de inimă roșie"),
        ("10D", "10 of diamonds", "zece de romb"),
        ("AC", "ace of clubs", "asul de treflă"),
        ("QS", "queen of spades", "dama de inimă neagră"),
        ("KH", "king of hearts", "popa de inimă roșie"),
        ("XR", "red joker", "jokerul roșu"),
        ("XB", "black joker", "jokerul negru"),
    ],
)
def test_card_names_are_spoken_names(code, english, romanian):
    with translation.override("en"):
        assert card_name(code) == english
    with translation.override("ro"):
        assert card_name(code) == romanian


def test_suit_names():
    with translation.override("ro"):
        assert [suit_name(s) for s in SUITS] == ["inimă neagră", "inimă roșie", "romb", "treflă"]
    with translation.override("en"):
        assert [suit_name(s) for s in SUITS] == ["spades", "hearts", "diamonds", "clubs"]


def test_everything_the_engine_says_and_every_card_name_is_in_romanian():
    with translation.override("en"):
        english = {code: card_name(code) for code in CODES}
    with translation.override("ro"):
        untranslated = {text for text in marked_strings() if translation.gettext(text) == text}
        untranslated |= {english[code] for code in CODES if card_name(code) == english[code]}
    assert untranslated == set()
