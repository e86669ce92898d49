"""Classic Șeptică: options, dealing, the match lifecycle, scoring and every match format (RULES.md §2).

Trick-level rules are shown by the scenario files (test_classic_scenarios.py); here the deal's end
is reached either by playing whole matches through the scenario runner or by loading a state that
has one trick left, so the score of the deal is exactly the one the test wants.
"""

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gameplay.engine import IllegalAction, get_game
from gameplay.engine.cards import CODES
from gameplay.engine.classic import DECK, END, GAME, PLAYS, TAKE_TRICK, Action, Options
from gameplay.engine.core import act
from tests.engine.helpers import run_scenario

ROOT = Path(__file__).resolve().parents[2]
POINT_CARDS = ["10S", "10H", "10D", "10C", "AS", "AH", "AD", "AC"]
# The last trick of the deals built below: distinct ranks, no seven, no points, so nobody cuts.
LAST_TRICK = ["8H", "9H", "JH", "QH"]


def options(**data):
    return GAME.options_from_json(data)


def last_trick_state(
    players, points, *, match="points8", lead="rotate", totals=None, games=None, deal=1, leader=0
):
    """A state with one card in each hand and the stock empty, whose captured points per seat are
    ``points``; the last trick carries no points, so the deal ends with exactly these."""
    sides = 2 if players == 4 else players
    deck = [CODES[c] for c in DECK if not (players == 3 and CODES[c] in ("8S", "8C"))]
    hands = [[LAST_TRICK[i]] for i in range(players)]
    won = [[] for _ in range(players)]
    pool = list(POINT_CARDS)
    for seat, count in enumerate(points):
        won[seat] += [pool.pop() for _ in range(count)]
    assert not pool, "the points must add up to 8"
    won[0] += [c for c in deck if c not in POINT_CARDS and c not in LAST_TRICK[:players]]
    return GAME.state_from_json(
        {
            "options": {"players": players, "match": match, "lead": lead},
            "rng": 12345,
            "deal": deal,
            "phase": "play",
            "deal_leader": leader,
            "leader": leader,
            "turn": leader,
            "holder": None,
            "cutting_rank": None,
            "hands": hands,
            "stock": [],
            "trick": [],
            "won": won,
            "totals": totals or [0] * sides,
            "games_won": games or [0] * sides,
            "last_winner": None,
            "winners": [],
        }
    )


def finish(state):
    """Play the last trick (nobody cuts) and the take; the events of the take."""
    while GAME.to_act(state) is not None and GAME.legal_actions(state) != [TAKE_TRICK]:
        GAME.apply(state, GAME.legal_actions(state)[0])
    return GAME.apply(state, TAKE_TRICK)


def play_match(opts, seed, choose=None):
    """Actions of a whole match chosen by a seeded random policy, in the runner's JSON form."""
    rng = random.Random(seed)
    state = GAME.new_match(GAME.options_from_json(opts), seed)
    actions = []
    while not GAME.is_over(state):
        if GAME.awaiting_deal(state):
            GAME.next_round(state)
        seat = GAME.to_act(state)
        legal = GAME.legal_actions(state)
        action = choose(state, legal) if choose else rng.choice(legal)
        GAME.apply(state, action)
        actions.append({"seat": seat, **GAME.action_to_json(action)})
    return {"game": "classic", "options": opts, "seed": seed, "actions": actions}


def deal_ends(lines):
    return [line for line in lines if line.get("deal_over") and line.get("to_act") is None]


# ----------------------------------------------------------------------------- options and actions


def test_registry_and_default_options():
    assert get_game("classic") is GAME
    assert GAME.options_to_json(options()) == {"players": 2, "match": "points8", "lead": "rotate"}
    every = {"players": 4, "match": "games3", "lead": "winner"}
    assert GAME.options_to_json(GAME.options_from_json(every)) == every


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"players": 5}, "'players' must be 2, 3 or 4"),
        ({"players": "2"}, "'players' must be 2, 3 or 4"),
        ({"players": True}, "'players' must be 2, 3 or 4"),
        ({"players": 2.0}, "'players' must be 2, 3 or 4"),
        ({"match": "points10"}, "'match' must be one of points8, points21, games1, games2, games3"),
        ({"lead": "loser"}, "'lead' must be 'rotate' or 'winner'"),
        ({"jokers": True}, "Unknown classic options: jokers"),
        ([], "Options must be a JSON object"),
    ],
)
def test_bad_options_are_refused_clearly(data, message):
    with pytest.raises(ValueError, match=message):
        GAME.options_from_json(data)


def test_actions_are_prebuilt_frozen_values_with_a_stable_form():
    state = GAME.new_match(options(), 1)
    legal = GAME.legal_actions(state)
    assert all(action is PLAYS[action.card] for action in legal)
    assert {PLAYS[20], END, TAKE_TRICK} == {Action("play", 20), Action("end"), Action("take")}
    assert str(PLAYS[DECK[12]]) == "play 10S" and str(END) == "end" and str(TAKE_TRICK) == "take"
    with pytest.raises(AttributeError):
        END.type = "take"
    for action in [*PLAYS.values(), END, TAKE_TRICK]:
        data = GAME.action_to_json(action)
        assert GAME.action_from_json(json.loads(json.dumps(data))) is action
    assert GAME.action_to_json(PLAYS[DECK[9]]) == {"type": "play", "card": "9H"}


@pytest.mark.parametrize(
    "data",
    [
        {"type": "play"},
        {"type": "play", "card": "1H"},
        {"type": "play", "card": "6H"},
        {"type": "play", "card": "XR"},
        {"type": "play", "card": 9},
        {"type": "end", "card": "9H"},
        {"type": "draw"},
        {},
        "end",
    ],
)
def test_malformed_actions_raise_value_error(data):
    with pytest.raises(ValueError):
        GAME.action_from_json(data)


# ----------------------------------------------------------------------------- dealing


@pytest.mark.parametrize(("players", "stock"), [(2, 24), (3, 18), (4, 16)])
def test_a_shuffled_deal_gives_four_each_and_the_rest_to_the_stock(players, stock):
    state = GAME.new_match(options(players=players), 99)
    report = GAME.scenario_report(state)
    assert [len(hand) for hand in report["hands"]] == [4] * players
    assert report["stock_count"] == stock
    cards = sorted(c for hand in state.hands for c in hand) + sorted(state.stock)
    assert sorted(cards) == sorted(DECK if players != 3 else set(DECK) - {24, 27})


def test_three_players_play_without_the_black_eights():
    for seed in range(50):
        state = GAME.new_match(options(players=3), seed)
        held = {CODES[c] for c in [*state.stock, *(c for hand in state.hands for c in hand)]}
        assert len(held) == 30 and not held & {"8S", "8C"}


def test_deal_one_leader_comes_from_the_seed():
    leaders = [GAME.new_match(options(players=4), seed).leader for seed in range(40)]
    assert leaders == [GAME.new_match(options(players=4), seed).leader for seed in range(40)]
    assert set(leaders) == {0, 1, 2, 3}
    assert GAME.scenario_report(GAME.new_match(options(players=4), 5))["leader"] == leaders[5]


@pytest.mark.parametrize(
    ("players", "deal", "message"),
    [
        (2, {"hands": [["7S"] * 4, []]}, "hands"),
        (
            2,
            {"leader": 0, "hands": [["7S", "7H", "7D", "7C"], ["8S", "8H", "8D", "8C"]], "stock": []},
            "leaves out",
        ),
        (
            3,
            {"hands": [["8S", "7H", "7D", "7C"], ["9S", "8H", "8D", "9C"], ["10S", "10H", "10D", "10C"]]},
            "stock",
        ),
        (2, {"hands": [["7S", "7S", "7D", "7C"], ["8S", "8H", "8D", "8C"]], "stock": []}, "twice"),
        (
            2,
            {"hands": [["7S", "7H", "7D", "2C"], ["8S", "8H", "8D", "8C"]], "stock": []},
            "not in the 2-player",
        ),
        (
            2,
            {"hands": [["7S", "7H", "7D", "7C"], ["8S", "8H", "8D", "8C"]], "stock": [], "who": 1},
            "Unknown",
        ),
    ],
)
def test_an_invalid_given_deal_is_a_value_error(players, deal, message):
    with pytest.raises(ValueError, match=message):
        GAME.new_match(options(players=players), 1, deal)


def test_a_three_player_deal_with_a_black_eight_is_refused():
    hands = [["8C", "7H", "7D", "7C"], ["9S", "8H", "8D", "9C"], ["10S", "10H", "10D", "10C"]]
    rest = [CODES[c] for c in DECK if CODES[c] not in {c for h in hands for c in h} | {"8S", "8C"}]
    with pytest.raises(ValueError, match="8C is not in the 3-player deck"):
        GAME.new_match(options(players=3), 1, {"hands": hands, "stock": rest})


def test_malformed_scenarios_exit_2_from_the_command_line(tmp_path):
    scenario = {
        "game": "classic",
        "options": {"players": 3},
        "deals": [{"hands": [], "stock": []}],
        "actions": [],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(scenario))
    result = subprocess.run(
        [sys.executable, "-m", "gameplay.engine.script", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 2
    assert "3 lists of 4 card codes" in result.stderr
    for bad in (
        {"game": "classic", "options": {"match": "x"}},
        {"game": "classic", "actions": [{"type": "end"}]},
    ):
        with pytest.raises(ValueError):
            run_scenario(bad)


# ----------------------------------------------------------------------------- events and lifecycle


def test_events_tell_the_table_what_happened_and_never_which_card_was_drawn():
    deal = {
        "leader": 0,
        "hands": [["9H", "7C", "8D", "JS"], ["9S", "AD", "8H", "QC"]],
        "stock": [CODES[c] for c in DECK if CODES[c] not in {"9H", "7C", "8D", "JS", "9S", "AD", "8H", "QC"}],
    }
    state = GAME.new_match(options(), 1, deal)
    assert act(GAME, state, 0, PLAYS[DECK[9]]) == [{"type": "played", "seat": 0, "card": "9H", "cuts": True}]
    assert GAME.apply(state, GAME.action_from_json({"type": "play", "card": "9S"})) == [
        {"type": "played", "seat": 1, "card": "9S", "cuts": True}
    ]
    assert GAME.apply(state, GAME.action_from_json({"type": "play", "card": "7C"})) == [
        {"type": "continued", "seat": 0},
        {"type": "played", "seat": 0, "card": "7C", "cuts": True},
    ]
    assert GAME.apply(state, GAME.action_from_json({"type": "play", "card": "AD"})) == [
        {"type": "played", "seat": 1, "card": "AD", "cuts": False},
        {"type": "trick_won", "seat": 0, "reason": "kept", "points": 1},
    ]
    assert GAME.apply(state, TAKE_TRICK) == [
        {"type": "took", "seat": 0, "cards": ["9H", "9S", "7C", "AD"], "points": 1},
        {"type": "drew", "seat": 0, "count": 2},
        {"type": "drew", "seat": 1, "count": 2},
    ]
    GAME.apply(state, GAME.action_from_json({"type": "play", "card": "8D"}))
    GAME.apply(state, GAME.action_from_json({"type": "play", "card": "8H"}))
    assert GAME.apply(state, END) == [
        {"type": "ended", "seat": 0},
        {"type": "trick_won", "seat": 1, "reason": "ended", "points": 0},
    ]


def test_the_deal_waits_between_deals_and_the_match_ends():
    state = last_trick_state(2, [3, 5], match="points8", totals=[2, 2], deal=2)
    events = finish(state)
    assert events[-1] == {
        "type": "deal_over",
        "deal": 2,
        "points": [3, 5],
        "winner": 1,
        "totals": [5, 7],
        "games_won": [0, 1],
    }
    assert GAME.awaiting_deal(state) and not GAME.is_over(state)
    assert GAME.to_act(state) is None and GAME.legal_actions(state) == []
    assert GAME.round_number(state) == 2
    with pytest.raises(IllegalAction, match=re.escape("This deal is over: wait for the next one.")):
        GAME.apply(state, END)
    with pytest.raises(IllegalAction, match=re.escape("This deal is over: wait for the next one.")):
        act(GAME, state, 0, END)
    assert GAME.next_round(state) == [{"type": "dealt", "deal": 3, "leader": 1, "stock_count": 24}]
    assert not GAME.awaiting_deal(state) and GAME.to_act(state) == 1 and state.captured == [0, 0]
    with pytest.raises(IllegalAction, match=re.escape("The deal is not over yet.")):
        GAME.next_round(state)

    state = last_trick_state(2, [3, 5], match="points8", totals=[2, 3])
    events = finish(state)
    assert events[-1] == {"type": "match_over", "winners": [1]}
    assert GAME.is_over(state) and not GAME.awaiting_deal(state) and GAME.to_act(state) is None
    assert GAME.legal_actions(state) == []
    with pytest.raises(IllegalAction, match=re.escape("The match is over.")):
        act(GAME, state, 1, TAKE_TRICK)
    with pytest.raises(IllegalAction, match=re.escape("The match is over.")):
        GAME.next_round(state)


# ----------------------------------------------------------------------------- scoring and match formats


@pytest.mark.parametrize(
    ("players", "points", "side_points", "winner"),
    [
        (2, [5, 3], [5, 3], 0),
        (2, [0, 8], [0, 8], 1),
        (2, [4, 4], [4, 4], None),
        (4, [1, 3, 3, 1], [4, 4], None),
        (4, [4, 0, 1, 3], [5, 3], 0),
        (4, [0, 2, 2, 4], [2, 6], 1),
        (3, [3, 3, 2], [3, 3, 2], None),
        (3, [2, 2, 4], [2, 2, 4], 2),
        (3, [4, 2, 2], [4, 2, 2], 0),
    ],
)
def test_the_deal_goes_to_strictly_most_points(players, points, side_points, winner):
    state = last_trick_state(players, points, match="points21")
    deal_over = next(e for e in finish(state) if e["type"] == "deal_over")
    assert deal_over["points"] == side_points and deal_over["winner"] == winner
    assert state.totals == side_points
    assert state.games_won == [int(side == winner) for side in range(len(side_points))]
    assert GAME.view(state, None)["deal_winner"] == winner


@pytest.mark.parametrize(
    ("players", "match", "points", "totals", "games", "over", "winners"),
    [
        # Points to 8 / 21: the match ends after the deal in which someone reaches the target.
        (2, "points8", [3, 5], [4, 2], [0, 0], False, []),
        (2, "points8", [4, 4], [4, 3], [0, 0], True, [0]),
        (2, "points8", [4, 4], [4, 4], [0, 0], True, []),  # 8-8: a shared highest total, no winner
        (2, "points8", [8, 0], [0, 0], [0, 0], True, [0]),
        (3, "points8", [3, 3, 2], [5, 5, 1], [0, 0, 0], True, []),  # 8-8-3
        (3, "points8", [2, 3, 3], [5, 6, 7], [0, 0, 0], True, [2]),  # 7-9-10: highest of those past it
        (4, "points21", [2, 2, 2, 2], [16, 16], [0, 0], False, []),  # 20-20
        (4, "points21", [3, 2, 2, 1], [16, 18], [0, 0], True, []),  # 21-21: shared, no winner
        (4, "points21", [3, 2, 2, 1], [16, 17], [0, 0], True, [0, 2]),  # 21-20
        (4, "points21", [0, 3, 3, 2], [16, 16], [0, 0], True, [1, 3]),  # 19-21
        # First to win 1, 2 or 3 games; a tied deal counts for nobody.
        (2, "games1", [4, 4], [0, 0], [0, 0], False, []),
        (2, "games1", [3, 5], [0, 0], [0, 0], True, [1]),
        (2, "games2", [6, 2], [0, 0], [0, 1], False, []),
        (2, "games2", [6, 2], [0, 0], [1, 1], True, [0]),
        (4, "games3", [2, 2, 2, 2], [0, 0], [2, 2], False, []),
        (4, "games3", [2, 0, 3, 3], [0, 0], [2, 2], True, [0, 2]),
        (3, "games2", [3, 3, 2], [0, 0, 0], [1, 1, 1], False, []),
        (3, "games3", [1, 3, 4], [0, 0, 0], [2, 2, 2], True, [2]),
    ],
)
def test_match_formats(players, match, points, totals, games, over, winners):
    state = last_trick_state(players, points, match=match, totals=totals, games=games)
    events = finish(state)
    assert GAME.is_over(state) is over and GAME.awaiting_deal(state) is not over
    report = GAME.scenario_report(state)
    assert report["match_over"] is over and report["winners"] == winners
    assert (events[-1] == {"type": "match_over", "winners": winners}) is over


@pytest.mark.parametrize(
    ("players", "lead", "points", "leader", "next_leader"),
    [
        (2, "rotate", [8, 0], 1, 0),
        (2, "winner", [8, 0], 1, 0),
        (2, "winner", [0, 8], 1, 1),
        (2, "winner", [4, 4], 1, 0),  # a tie rotates
        (3, "rotate", [8, 0, 0], 2, 0),
        (3, "winner", [0, 5, 3], 2, 1),
        (3, "winner", [3, 3, 2], 2, 0),
        (4, "rotate", [8, 0, 0, 0], 3, 0),
        # Teams: the first seat of the winning team after the last deal's leader, so partners alternate.
        (4, "winner", [3, 0, 3, 2], 0, 2),
        (4, "winner", [3, 0, 3, 2], 1, 2),
        (4, "winner", [3, 0, 3, 2], 2, 0),
        (4, "winner", [3, 0, 3, 2], 3, 0),
        (4, "winner", [0, 5, 0, 3], 0, 1),
        (4, "winner", [0, 5, 0, 3], 1, 3),
        (4, "winner", [1, 2, 3, 2], 3, 0),  # 4-4 rotates
    ],
)
def test_who_leads_the_next_deal(players, lead, points, leader, next_leader):
    state = last_trick_state(players, points, match="points21", lead=lead, leader=leader)
    finish(state)
    assert GAME.next_round(state)[0]["leader"] == next_leader
    assert GAME.to_act(state) == next_leader == GAME.scenario_report(state)["leader"]


def test_a_given_later_deal_may_name_its_leader_or_leave_it_to_the_rules():
    state = last_trick_state(2, [8, 0], lead="rotate", match="points21")
    finish(state)
    deal = {"hands": [["7S", "8S", "9S", "10S"], ["JS", "QS", "KS", "AS"]]}
    deal["stock"] = [CODES[c] for c in DECK if CODES[c] not in deal["hands"][0] + deal["hands"][1]]
    clone = GAME.clone(state)
    assert GAME.next_round(clone, deal)[0]["leader"] == 1
    assert GAME.next_round(state, {**deal, "leader": 0})[0]["leader"] == 0
    assert [CODES[c] for c in state.hands[0]] == ["7S", "8S", "9S", "10S"]


@pytest.mark.parametrize(
    "opts",
    [
        {"players": 2, "match": "points8"},
        {"players": 3, "match": "points21", "lead": "winner"},
        {"players": 4, "match": "points21"},
        {"players": 2, "match": "games1", "lead": "winner"},
        {"players": 3, "match": "games2"},
        {"players": 4, "match": "games3", "lead": "winner"},
    ],
)
def test_whole_matches_through_the_runner_keep_score_by_the_rules(opts):
    """Each deal adds its points to the totals and a game to its strict winner; the match ends
    after the first deal that reaches the target and not before; leaders follow the lead option."""
    parsed = GAME.options_from_json(opts)
    kind, target = {"points8": ("points", 8), "points21": ("points", 21)}.get(opts["match"], ("games", 0))
    target = target or int(opts["match"][-1])
    for seed in range(6):
        lines = run_scenario(play_match(opts, seed))
        ends = deal_ends(lines)
        totals = [0] * parsed.sides
        games = [0] * parsed.sides
        for number, line in enumerate(ends, start=1):
            points = line["deal_points"]
            assert sum(points) == 8 and line["deal"] == number
            top = max(points)
            winner = points.index(top) if points.count(top) == 1 else None
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            if winner is not None:
                games[winner] += 1
            assert line["totals"] == totals and line["games_won"] == games
            scores = totals if kind == "points" else games
            assert line["match_over"] is (max(scores) >= target) is (number == len(ends))
        best = max(scores)
        side = scores.index(best) if scores.count(best) == 1 else None
        seats = [] if side is None else ([side, side + 2] if parsed.players == 4 else [side])
        assert lines[-1]["winners"] == seats
        starts = [lines[0]] + [lines[i + 1] for i, line in enumerate(lines[:-1]) if line in ends]
        leaders = [line["leader"] for line in starts]
        for previous, (leader, end) in enumerate(zip(leaders[1:], ends, strict=False)):
            rotated = (leaders[previous] + 1) % parsed.players
            winner_side = end["deal_points"].index(max(end["deal_points"]))
            tied = end["deal_points"].count(max(end["deal_points"])) > 1
            if opts.get("lead") == "winner" and not tied:
                assert leader % parsed.sides == winner_side
            else:
                assert leader == rotated


@pytest.mark.parametrize(
    ("opts", "seed", "deals"),
    [
        # (deal points, totals, games won, winners) after each deal of a whole random match.
        ({"players": 2, "match": "points8"}, 3, [([3, 5], [3, 5], [0, 1], []), ([5, 3], [8, 8], [1, 1], [])]),
        (
            {"players": 4, "match": "points8"},
            36,
            [([5, 3], [5, 3], [1, 0], []), ([3, 5], [8, 8], [1, 1], [])],
        ),
        (
            {"players": 2, "match": "games1"},
            25,
            [([4, 4], [4, 4], [0, 0], []), ([8, 0], [12, 4], [1, 0], [0])],
        ),
        (
            {"players": 3, "match": "games1"},
            2,
            [([4, 0, 4], [4, 0, 4], [0, 0, 0], []), ([2, 6, 0], [6, 6, 4], [0, 1, 0], [1])],
        ),
    ],
)
def test_ties_played_out_through_the_runner(opts, seed, deals):
    """8-8 totals end a points match with no winner; a 4-4 deal or a shared top in three counts for
    nobody and the games match goes on."""
    ends = deal_ends(run_scenario(play_match(opts, seed)))
    assert [(e["deal_points"], e["totals"], e["games_won"], e["winners"]) for e in ends] == deals
    assert [e["match_over"] for e in ends] == [False, True]


# ----------------------------------------------------------------------------- views


def test_a_seat_sees_its_hand_the_table_and_the_counts():
    hands = [
        ["9H", "7C", "8D", "JS"],
        ["9S", "AD", "8H", "QC"],
        ["10H", "KD", "QD", "JD"],
        ["AC", "KS", "QS", "JC"],
    ]
    dealt = {c for hand in hands for c in hand}
    deal = {"leader": 0, "hands": hands, "stock": [CODES[c] for c in DECK if CODES[c] not in dealt]}
    state = GAME.new_match(options(players=4, match="games2"), 3, deal)
    for code in ("9H", "9S", "10H", "AC"):
        GAME.apply(state, GAME.action_from_json({"type": "play", "card": code}))
    view = GAME.view(state, 0)
    assert view["hand"] == ["7C", "8D", "JS"]
    assert view["trick"] == [
        {"seat": 0, "card": "9H", "cuts": True},
        {"seat": 1, "card": "9S", "cuts": True},
        {"seat": 2, "card": "10H", "cuts": False},
        {"seat": 3, "card": "AC", "cuts": False},
    ]
    assert view["cutting_rank"] == "9" and view["holder"] == 1 and view["leader"] == 0
    assert view["to_act"] == 0 and view["awaiting"] == "continue"
    assert view["legal"] == [{"type": "play", "card": "7C"}, {"type": "end"}]
    assert view["hand_counts"] == [3, 3, 3, 3] and view["stock_count"] == 16
    assert view["teams"] == [[0, 2], [1, 3]]
    assert view["options"] == {"players": 4, "match": "games2", "lead": "rotate"}
    assert GAME.view(state, 1)["legal"] == [] and GAME.view(state, 1)["hand"] == ["AD", "8H", "QC"]
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal"] == []
    with pytest.raises(ValueError):
        GAME.view(state, 4)


def test_options_object_is_frozen():
    with pytest.raises(AttributeError):
        Options().players = 3
