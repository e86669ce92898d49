"""The practice table's runtime (``practice.offline``), run here under CPython exactly as the browser
runs it under Pyodide: whole matches against bots, the frames it sends, what it refuses, resuming."""

import json
import random
import re
from collections import Counter

import pytest

from bench.management.commands.loadbench import HAND, hand_shown
from bots import policies
from gameplay.engine import get_game
from practice import offline
from tests.gameplay.test_consumers import hidden_from

MATCHES = [
    ("americana", {"players": 2, "target": 101}, ["normal"]),
    ("americana", {"players": 4, "target": 101}, ["easy", "hard", "normal"]),
    ("classic", {"players": 2, "match": "points8"}, ["normal"]),
    ("classic", {"players": 4, "match": "points8"}, ["hard", "easy", "normal"]),
]
CARD_IN_HTML = re.compile(r'data-code="([0-9A-Z]{2,3})"|value="([0-9A-Z]{2,3})"')


def new_table(
    game: str, options: dict, bots: list[str], seed: int = 7, language: str = "en"
) -> offline.PracticeTable:
    record = {"game": game, "options": options, "seed": seed, "seat": 0, "bots": bots, "actions": []}
    return offline.PracticeTable(record=record, language=language, player_name="ana")


def players_move(table: offline.PracticeTable, rng: random.Random) -> str:
    """The person's move as the page sends it: htmx's form message, every value a string."""
    game = table.game
    legal = [game.action_to_json(action) for action in game.legal_actions(table.state)]
    action = policies.choose(game.view(table.state, 0), legal, "normal", rng)
    frame = {"version": str(table.version), **{key: str(value) for key, value in action.items()}}
    return json.dumps(frame)


def play_out(table: offline.PracticeTable, rng: random.Random, check=None) -> list[str]:
    sent = [table.page(), table.connect()]
    for _ in range(5000):
        if table.finished:
            break
        before = table.version
        if table.due() is None:
            sent.append(table.receive(players_move(table, rng)))
        else:
            sent.append(table.advance())
        assert table.version == before + 1
        if check:
            check(table, sent[-1])
    return sent


@pytest.mark.parametrize(("game", "options", "bots"), MATCHES)
def test_a_whole_practice_match_plays_to_its_end_and_its_record_replays(game, options, bots):
    table = new_table(game, options, bots)
    sent = play_out(table, random.Random(1))
    assert table.finished
    assert 'data-testid="match-over"' in sent[-1]
    assert 'data-practice="again"' in sent[-1]
    resumed = offline.PracticeTable(
        record=json.loads(json.dumps(table.record)), language="en", player_name="ana"
    )
    engine = get_game(game)
    assert engine.state_to_json(resumed.state) == engine.state_to_json(table.state)
    assert resumed.version == table.version


@pytest.mark.parametrize(("game", "options", "bots"), MATCHES)
def test_no_frame_shows_another_seats_card_or_the_stock(game, options, bots):
    engine = get_game(game)

    def check(table, html):
        state = engine.state_to_json(table.state)
        shown = {code for groups in CARD_IN_HTML.findall(html) for code in groups if code}
        round_over = engine.awaiting_deal(table.state) or engine.is_over(table.state)
        hidden = hidden_from(state, 0, game, round_over)
        # A card just played or captured is public; what is still hidden now never appears.
        assert not shown & hidden - public_cards(html)

    play_out(new_table(game, options, bots, seed=11), random.Random(2), check)


@pytest.mark.parametrize(("game", "options", "bots"), MATCHES)
def test_a_hand_is_sent_again_only_when_more_than_its_turn_line_changed(game, options, bots):
    """Most moves leave a seat's cards and buttons as they were: its frame then carries only the hand's
    turn line (whose turn it is, the version), and the page, swapping each frame in as htmx does,
    shows exactly the hand a page loaded afresh shows."""
    table = new_table(game, options, bots, seed=5)
    rng = random.Random(3)
    shown = hand_shown("", table.connect())
    sent = Counter()
    for _ in range(120):
        frame = table.receive(players_move(table, rng)) if table.due() is None else table.advance()
        sent["hand" if 'id="hand-area"' in frame else "turn" if 'id="turn"' in frame else "neither"] += 1
        shown = hand_shown(shown, frame)
        assert shown == HAND.search(page_afresh(table)).group(0)
        if table.finished:
            break
    assert sent["neither"] == 0  # every move changes the turn line at least: its version
    if options["players"] == 4:  # the bots' moves between two of the person's turns leave the hand be
        assert sent["turn"] > sent["hand"] / 2


def page_afresh(table: offline.PracticeTable) -> str:
    """The whole table as a page loaded now shows it, leaving the table's own page as it was."""
    sent = dict(table.sent)
    try:
        return table.page()
    finally:
        table.sent = sent


def public_cards(html: str) -> set[str]:
    """Cards the frame's public events name (the move just made shows its card)."""
    return set(re.findall(r"&quot;card&quot;: &quot;([0-9A-Z]{2,3})&quot;", html))


def test_a_bot_decides_from_its_seats_view_only(monkeypatch):
    table = new_table("americana", {"players": 3, "target": 101}, ["hard", "normal"], seed=5)
    seen = []
    choose = policies.choose

    def spying(view, legal, level, rng, **kwargs):
        seen.append((view, level))
        return choose(view, legal, level, rng, **kwargs)

    monkeypatch.setattr(policies, "choose", spying)
    rng = random.Random(3)
    table.connect()
    for _ in range(40):
        if table.due() is None:
            table.receive(players_move(table, rng))
        else:
            seat = table.game.to_act(table.state)
            expected = table.game.view(table.state, seat) if seat not in (None, 0) else None
            table.advance()
            if expected is not None:
                assert seen[-1] == (expected, table.record["bots"][seat - 1])
    assert len(seen) > 5


def test_an_illegal_a_stale_and_an_unreadable_frame_change_nothing():
    table = new_table("americana", {"players": 2, "target": 101}, ["normal"], seed=3)
    table.connect()
    while table.due() is not None:
        table.advance()
    version, actions = table.version, list(table.record["actions"])
    hand = table.game.view(table.state, 0)["hand"]
    legal = {a.get("card") for a in map(table.game.action_to_json, table.game.legal_actions(table.state))}
    unplayable = [card for card in hand if card not in legal]
    if unplayable:
        answer = table.receive(json.dumps({"version": str(version), "type": "play", "card": unplayable[0]}))
        assert 'id="notice"' in answer and "hand-area" not in answer
    assert 'id="notice"' in table.receive("{not json")
    assert 'id="notice"' in table.receive(json.dumps({"version": "1", "type": "fly"}))
    stale = table.receive(json.dumps({"version": str(version + 5), "type": "draw"}))
    assert 'id="hand-area"' in stale  # the whole table again, nothing played
    assert (table.version, table.record["actions"]) == (version, actions)


def test_the_table_speaks_romanian():
    table = new_table("classic", {"players": 2, "match": "points8"}, ["easy"], language="ro")
    html = table.page()
    assert "Șeptică clasică" in html or "Șeptică" in html
    assert "Bot 2" in html and "ușor" in html


def test_a_record_that_does_not_replay_names_the_step():
    table = new_table("americana", {"players": 2, "target": 101}, ["easy"], seed=9)
    play_out(table, random.Random(4))
    record = json.loads(json.dumps(table.record))
    record["actions"][3] = {"type": "play", "card": "XR"}
    with pytest.raises(ValueError, match="Action 4"):
        offline.PracticeTable(record=record, language="en", player_name="ana")


def test_a_new_records_seed_survives_javascript():
    """The page keeps records as JavaScript numbers: a seed beyond 2**53 would come back changed."""
    seeds = {
        json.loads(offline.new_record("classic", "{}", '["easy"]', False, "x"))["seed"] for _ in range(200)
    }
    assert max(seeds) < 2**53 and len(seeds) > 190
