"""A reviewed match in words and a drawing (``gameplay.games.review``): every kind of action said in
English and Romanian, a real review of bot matches summarized, each row's replay step checked against
the engine dealing as the replay does, and the drawing valid SVG with a title and a description."""

from functools import cache
from xml.etree import ElementTree

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from bots.arena import bot_played_actions
from bots.review import match_accuracy, review
from gameplay.engine import get_game
from gameplay.games.review import LABELS, action_text, loss_text, summarize, tenths

SVG = "{http://www.w3.org/2000/svg}"
MATCHES = {
    "americana": ({"players": 2, "target": 101}, 11),
    "classic": ({"players": 2, "match": "points8"}, 11),
}

ACTIONS = [
    ("americana", {"type": "play", "card": "9H"}, "the 9 of hearts", "nouă de inimă roșie"),
    (
        "americana",
        {"type": "play", "card": "7C", "suit": "H"},
        "the 7 of clubs, naming hearts",
        "inimă roșie",
    ),
    ("americana", {"type": "play", "card": "XR"}, "the red joker", ""),
    ("americana", {"type": "draw"}, "draw a card", ""),
    ("americana", {"type": "take"}, "take the cards", ""),
    ("americana", {"type": "sit_out"}, "sit out a turn", ""),
    ("classic", {"type": "play", "card": "10H"}, "the 10 of hearts", "zece de inimă roșie"),
    ("classic", {"type": "end"}, "end the trick", ""),
    ("classic", {"type": "take"}, "take the trick", ""),
]


@cache
def judged(game: str) -> tuple[list[dict], list[dict]]:
    """(Every seat's actions, seat 0's decisions judged on 8 positions) of a short bot match."""
    options, seed = MATCHES[game]
    actions = bot_played_actions(game, options, seed, ["easy", "normal"])
    return actions, [each.to_json() for each in review(game, options, seed, actions, seats=[0], positions=8)]


def summary_of(game: str):
    _actions, decisions = judged(game)
    return summarize(game, decisions, match_accuracy(game, [each["loss"] for each in decisions]))


@pytest.mark.parametrize(("game", "action", "english", "romanian"), ACTIONS)
def test_every_kind_of_action_is_said_in_english_and_romanian(game, action, english, romanian):
    with translation.override("en"):
        assert action_text(game, action) == english
    with translation.override("ro"):
        said = action_text(game, action)
    assert said
    assert romanian in said  # the card and the suit in the players' words
    if action["type"] == "play":
        assert "of" not in said.split()


def test_an_action_of_no_known_kind_is_refused():
    with pytest.raises(ValueError, match="No words"):
        action_text("classic", {"type": "wave"})


def test_a_loss_is_said_in_the_games_unit_with_one_decimal():
    assert (
        tenths(4.24) == "4.2" and tenths(0.06) == "0.1" and tenths(-1.5) == "−1.5" and tenths(-0.01) == "0.0"
    )
    assert loss_text("americana", 4.24) == "cost 4.2 points"
    assert loss_text("classic", 0.6) == "cost 0.6 tens and aces"
    assert loss_text("classic", 0.04) == "cost almost nothing"
    with translation.override("ro"):
        assert loss_text("americana", 4.24) == "a costat 4,2 puncte"
        assert action_text("americana", {"type": "play", "card": "7C", "suit": "H"}) == (
            "șapte de treflă, cerând inimă roșie"
        )


@pytest.mark.parametrize("game", MATCHES)
def test_a_real_review_is_summarized_row_by_row(game):
    _actions, decisions = judged(game)
    summary = summary_of(game)
    assert decisions and len(summary.rows) == len(decisions)
    for row, decision in zip(summary.rows, decisions, strict=True):
        chosen, best = decision["chosen"], decision["best"]
        assert (row.number, row.round, row.seat, row.label) == (
            decision["number"],
            decision["round"],
            0,
            decision["label"],
        )
        assert row.played == action_text(game, decision["actions"][chosen])
        assert (row.best == "") == (best == chosen) == (row.loss_text == "")
        assert row.expected == decision["values"][chosen] and row.best_value == decision["values"][best]
    assert summary.marked == [row for row in summary.rows if row.label]
    assert set(summary.counts) == set(LABELS)
    assert sum(summary.counts.values()) == len(summary.marked)
    assert 0 <= summary.accuracy <= 100


@pytest.mark.parametrize("game", MATCHES)
def test_each_rows_step_is_the_replays_step_of_that_move(game):
    """The replay (``history.selectors.replay``) makes one step per move and one per deal after the
    first, dealt just before the next move: the engine walked the same way gives each move's step."""
    actions, _decisions = judged(game)
    options, seed = MATCHES[game]
    engine = get_game(game)
    state = engine.new_match(engine.options_from_json(options), seed)
    step_of, index = {}, 0
    for number, action in enumerate(actions, start=1):
        if engine.awaiting_deal(state):
            engine.next_round(state)
            index += 1
        index += 1
        step_of[number] = index
        engine.apply(state, engine.action_from_json(action))
    rows = summary_of(game).rows
    assert [row.step for row in rows] == [step_of[row.number] for row in rows]
    if game == "americana":
        assert rows[-1].round > 1, "a match of several rounds checks the deal steps"


@pytest.mark.parametrize("language", ["en", "ro"])
def test_the_drawing_is_svg_with_a_title_and_a_description(language):
    with translation.override(language):
        summary = summary_of("americana")
    drawing = ElementTree.fromstring(summary.plot)
    assert drawing.tag == f"{SVG}svg" and drawing.get("role") == "img"
    title, desc = drawing.find(f"{SVG}title"), drawing.find(f"{SVG}desc")
    assert title.text and desc.text
    assert drawing.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert len(drawing.findall(f"{SVG}polyline")) == 2
    assert len(drawing.findall(f"{SVG}circle")) == len(summary.marked)
    rounds = len({row.round for row in summary.rows})
    assert len(drawing.findall(f"{SVG}line[@class='review-plot-round']")) == rounds - 1


def test_the_template_shows_the_accuracy_the_counts_the_drawing_and_links_to_the_replay():
    summary = summary_of("americana")
    html = render_to_string("gameplay/_review.html", {"review": summary, "replay_url": "/matches/5/replay/"})
    assert f"Accuracy {round(summary.accuracy)}%" in html
    assert 'data-testid="review-plot"' in html and "<table>" in html
    assert html.count("<tr><td>") == len(summary.rows)
    for row in summary.marked:
        assert f'href="/matches/5/replay/?step={row.step}"' in html
        assert f"Round {row.round}, move {row.number}</a>" in html
    assert html.count('class="review-mark ') == len(summary.marked)
    offline = render_to_string("gameplay/_review.html", {"review": summary})
    assert "href=" not in offline


def test_a_match_with_no_choice_to_judge_says_so():
    summary = summarize("classic", [], None)
    assert summary.plot == "" and summary.rows == [] and summary.counts == dict.fromkeys(LABELS, 0)
    html = render_to_string("gameplay/_review.html", {"review": summary})
    assert 'data-testid="review-empty"' in html and "<svg" not in html
