"""Every rule and option of RULES.md §1, played through the scenario runner on fixed deals."""

import random

import pytest

from gameplay.engine import IllegalAction, get_game
from gameplay.engine.americana import GAME
from gameplay.engine.cards import CODES, card
from gameplay.engine.rng import Rng
from tests.engine.helpers import run_scenario


def deal(hands, pile, stock=(), *, dealer=None, rest="stock", jokers=False):
    """A full-deck deal: the cards not named go under the given stock, under the pile, or to a seat.

    The dealer defaults to the last seat, so seat 0 acts first.
    """
    named = [c for hand in hands for c in hand] + list(pile) + list(stock)
    others = [c for c in CODES[: 54 if jokers else 52] if c not in named]
    result = {"hands": [list(hand) for hand in hands], "stock": list(stock), "pile": list(pile)}
    if rest == "stock":
        result["stock"] += others
    elif rest == "pile":
        result["pile"] = others + result["pile"]
    else:
        result["hands"][rest] += others
    result["dealer"] = len(hands) - 1 if dealer is None else dealer
    return result


def action(text):
    """'0 7D S' (seat 0 plays 7D naming spades), '1 5H', '2 draw', '3 take', '0 sit_out'."""
    seat, what, *suit = text.split()
    entry = {"seat": int(seat)}
    if what in ("draw", "take", "sit_out"):
        return entry | {"type": what}
    entry |= {"type": "play", "card": what}
    return entry | ({"suit": suit[0]} if suit else {})


def play(actions, *deals, seed=0, **options):
    """The runner's lines for these actions on these deals (as many players as the first has hands)."""
    return run_scenario(
        {
            "game": "americana",
            "options": {"players": len(deals[0]["hands"])} | options,
            "seed": seed,
            "deals": list(deals),
            "actions": [action(a) for a in actions],
        }
    )


def legal(line):
    return {(a["type"], a.get("card"), a.get("suit")) for a in line["legal"]}


def refused(line, reason):
    assert line == {"step": line["step"], "ok": False, "error": reason}


def events_of(table, actions, **options):
    """The events of each action, applied straight to the game object."""
    game = get_game("americana")
    state = game.new_match(game.options_from_json({"players": len(table["hands"]), **options}), 0, table)
    result = []
    for text in actions:
        entry = action(text)
        assert game.to_act(state) == entry.pop("seat")
        result.append(game.apply(state, game.action_from_json(entry)))
    return result


def do(state, **data):
    return GAME.apply(state, GAME.action_from_json(data))


SPECIAL = ("7", "2", "J", "A", "X")  # ranks (and jokers) a round never opens on
ALL_ON = {"jokers": True, "jack_draws_two": True}

# A 3-player table where seat 0 starts, the pile shows the 5 of hearts and nothing fancy is held.
PLAIN = deal([["9H", "3S", "4C"], ["8D", "6S", "QC"], ["KD", "10S", "6C"]], ["5H"])


class TestDeal:
    def test_round_one_dealer_comes_from_the_seed_and_the_next_seat_starts(self):
        dealers = set()
        for seed in range(40):
            state = GAME.new_match(GAME.options_from_json({"players": 4}), seed)
            assert GAME.to_act(state) == (state.dealer + 1) % 4
            assert GAME.new_match(GAME.options_from_json({"players": 4}), seed).dealer == state.dealer
            dealers.add(state.dealer)
        assert dealers == {0, 1, 2, 3}

    def test_five_cards_each_and_the_rest_face_down(self):
        state = GAME.new_match(GAME.options_from_json({"players": 3, "jokers": True}), 7)
        view = GAME.view(state, 0)
        assert view["hand_counts"] == [5, 5, 5]
        assert view["stock_count"] == 54 - 15 - 1 and len(view["pile"]) == 1

    @pytest.mark.parametrize("options", [{}, {"jokers": True, "jack_draws_two": True, "court_follows": True}])
    def test_a_turned_seven_two_jack_ace_or_joker_is_buried_under_the_stock(self, options):
        options = GAME.options_from_json(options)
        buried_some = 0
        for seed in range(300):
            state = GAME.new_match(options, seed)
            # Redo the deal's shuffle: the dealer is drawn first, then the deck is shuffled.
            rng = Rng(seed)
            rng.below(options.players)
            deck = list(range(options.deck_size))
            rng.shuffle(deck)
            stock = deck[20:][::-1]  # after five cards each, top first
            buried = []
            while CODES[stock[0]][:-1] in SPECIAL:
                buried.append(stock.pop(0))
            assert state.pile == [stock[0]]
            # Each buried card goes under all the others: the last one buried is the very bottom.
            assert state.stock[: len(buried)] == buried[::-1]
            assert len(state.stock) == len(stock) - 1 + len(buried)
            buried_some += bool(buried)
        assert buried_some > 50

    def test_the_deal_event_names_the_buried_cards(self):
        options = GAME.options_from_json({"players": 2})
        for seed in range(100):
            state = GAME.new_match(options, seed)
            GAME.playout(state, random.Random(seed), "rollout")
            if GAME.is_over(state):
                continue
            dealt, *_ = GAME.next_round(state)
            assert dealt["type"] == "dealt" and dealt["round"] == 2
            assert CODES[state.pile[-1]][:-1] not in SPECIAL
            if dealt["buried"]:
                assert [CODES[c] for c in state.stock[: len(dealt["buried"])]] == dealt["buried"][::-1]
                return
        pytest.fail("no round 2 deal buried anything")

    def test_the_deal_moves_one_seat_each_round(self):
        options = GAME.options_from_json({"players": 3})
        state = GAME.new_match(options, 11)
        first = state.dealer
        for round_number in range(2, 5):
            GAME.playout(state, random.Random(round_number), "rollout")
            if GAME.is_over(state):
                break
            events = GAME.next_round(state)
            assert events[0]["dealer"] == state.dealer == (first + round_number - 1) % 3
            assert GAME.round_number(state) == round_number
            assert GAME.to_act(state) == (state.dealer + 1) % 3

    def test_a_round_dealt_from_the_seed_after_a_fixed_one_moves_the_deal_on(self):
        # Round 1: dealer 2, seat 0 goes out at once. Round 2 from the seed: dealer 0, seat 1 starts.
        first = deal([["9H"], ["8D", "6S"], ["KD", "10S"]], ["5H"])
        lines = play(["0 9H", "0 draw", "1 draw"], first)
        assert lines[1]["round_over"] and lines[1]["charges"] == [0, 14, 20]
        refused(lines[2], "It is not your turn.")
        assert lines[3]["ok"] and lines[3]["round"] == 2 and lines[3]["to_act"] == 2

    def test_a_fixed_deal_without_a_dealer_moves_the_deal_on(self):
        first = deal([["8D", "6S"], ["KD", "10S"], ["9H"]], ["5H"], dealer=1)
        second = deal([["9H", "3S"], ["8D", "6S"], ["KD", "10S"]], ["5H"])
        del second["dealer"]
        lines = play(["2 9H", "0 9H"], first, second)
        assert lines[1]["round_over"]
        assert lines[2]["ok"] and lines[2]["round"] == 2 and lines[2]["to_act"] == 1


class TestPlaying:
    def test_the_opening_card_sets_the_suit_in_force(self):
        lines = play([], PLAIN)
        assert lines[0]["top"] == "5H" and lines[0]["suit"] == "H" and lines[0]["to_act"] == 0
        assert legal(lines[0]) == {("play", "9H", None), ("draw", None, None)}

    def test_follow_the_suit_in_force(self):
        lines = play(["0 9H", "1 8D", "1 draw", "2 KD"], PLAIN)
        assert lines[1]["top"] == "9H" and lines[1]["suit"] == "H" and lines[1]["to_act"] == 1
        assert legal(lines[1]) == {("draw", None, None)}
        refused(lines[2], "That card does not follow the 9 of hearts.")
        assert lines[3]["to_act"] == 2
        refused(lines[4], "That card does not follow the 9 of hearts.")

    def test_follow_the_rank_and_its_suit_takes_over(self):
        table = deal([["9H", "3S"], ["9C", "QC", "4S"], ["KD", "10S"]], ["5H"])
        lines = play(["0 9H", "1 9C", "2 KD"], table)
        assert lines[2]["suit"] == "C" and lines[2]["top"] == "9C"
        refused(lines[3], "That card does not follow the 9 of clubs.")

    def test_drawing_is_allowed_holding_a_playable_card_and_ends_the_turn(self):
        table = deal([["9H", "3S"], ["8D", "QC"], ["KD", "10S"]], ["5H"], ["6H", "2C"])
        lines = play(["0 draw", "0 6H", "1 draw"], table)
        assert lines[1]["hands"][0] == ["3S", "6H", "9H"] and lines[1]["to_act"] == 1
        assert lines[1]["stock_count"] == 52 - 6 - 1 - 1
        refused(lines[2], "It is not your turn.")  # the drawn card waits for the next turn
        assert lines[3]["ok"] and lines[3]["to_act"] == 2

    def test_a_seven_goes_on_anything_and_names_any_suit(self):
        table = deal([["7D", "9S"], ["9H", "5S", "KC"], ["6C", "8C"]], ["4H"])
        lines = play(["0 7D", "0 7D C", "1 9H", "1 5S", "1 KC"], table)
        assert {("play", "7D", s) for s in "SHDC"} <= legal(lines[0])
        refused(lines[1], "Name a suit for your seven.")
        assert lines[2]["top"] == "7D" and lines[2]["suit"] == "C"  # clubs: seat 0 holds none
        refused(lines[3], "That card does not follow the 7 of diamonds: the suit in force is clubs.")
        refused(lines[4], "That card does not follow the 7 of diamonds: the suit in force is clubs.")
        assert lines[5]["ok"] and lines[5]["suit"] == "C" and lines[5]["top"] == "KC"

    def test_a_seven_follows_a_seven(self):
        table = deal([["7D", "9S"], ["7H", "5C"], ["6C", "8C"]], ["4H"])
        lines = play(["0 7D S", "1 7H D"], table)
        assert lines[2]["suit"] == "D"

    def test_refusals_a_player_can_read(self):
        lines = play(["0 KD", "0 take", "0 sit_out", "2 draw"], PLAIN)
        refused(lines[1], "You do not hold that card.")
        refused(lines[2], "Nothing is waiting for you to take.")
        refused(lines[3], "No ace is making you miss a turn.")
        refused(lines[4], "It is not your turn.")

    def test_an_illegal_action_changes_nothing(self):
        state = GAME.new_match(GAME.options_from_json({"players": 3}), 0, PLAIN)
        before = GAME.state_to_json(state)
        for bad in ({"card": "KD"}, {"card": "3S"}, {"type": "take"}, {"type": "sit_out"}):
            with pytest.raises(IllegalAction):
                do(state, **({"type": "play"} | bad))
        assert GAME.state_to_json(state) == before


class TestDrawCards:
    def test_a_two_makes_the_next_player_take_two_and_a_seven_cannot_answer(self):
        table = deal([["2H", "9S"], ["7C", "5C", "QS"], ["6C", "8C"]], ["5H"])
        lines = play(["0 2H", "1 7C S", "1 draw", "1 5C", "1 take", "2 8C"], table)
        assert lines[1]["owed"] == 2 and lines[1]["to_act"] == 1
        assert legal(lines[1]) == {("take", None, None)}
        refused(lines[2], "A seven cannot answer cards you owe.")
        refused(lines[3], "You owe 2 cards: take them all or answer with a two.")
        refused(lines[4], "You must take the cards you owe or answer with a two.")
        assert lines[5]["owed"] == 0 and len(lines[5]["hands"][1]) == 5 and lines[5]["to_act"] == 2
        # Taking ended the turn; the next player follows the two normally.
        refused(lines[6], "That card does not follow the 2 of hearts.")

    def test_after_taking_a_two_on_top_is_a_new_attack(self):
        table = deal([["2H", "9S"], ["5C", "QS"], ["2C", "8C"]], ["5H"])
        lines = play(["0 2H", "1 take", "2 2C"], table)
        assert lines[3]["owed"] == 2 and lines[3]["to_act"] == 0 and lines[3]["suit"] == "C"

    def test_stacking_two_two_jack_joker(self):
        table = deal([["2H", "9S"], ["2S", "3D"], ["JC", "4D"], ["XR", "8C"]], ["5H"], jokers=True)
        lines = play(["0 2H", "1 2S", "2 JC", "3 XR", "0 9S", "0 take"], table, players=4, **ALL_ON)
        assert [line["owed"] for line in lines[1:5]] == [2, 4, 6, 11]
        assert lines[4]["suit"] is None and lines[4]["top"] == "XR"
        refused(lines[5], "You must take the cards you owe or answer with a two, a jack or a joker.")
        assert lines[6]["owed"] == 0 and len(lines[6]["hands"][0]) == 12 and lines[6]["to_act"] == 1

    def test_a_draw_card_answers_whatever_its_suit(self):
        table = deal([["2H", "9S"], ["2C", "3D"], ["JD", "4D"], ["XB", "8C"]], ["5H"], jokers=True)
        lines = play(["0 2H", "1 2C", "2 JD", "3 XB"], table, players=4, **ALL_ON)
        assert all(line["ok"] for line in lines) and lines[-1]["owed"] == 11

    def test_a_jack_is_plain_without_jack_draws_two(self):
        table = deal([["2H", "9S"], ["JS", "3D"], ["JH", "4D"]], ["5H"])
        lines = play(["0 2H", "1 JS", "1 take", "2 JH"], table)
        refused(lines[2], "You must take the cards you owe or answer with a two.")
        assert lines[4]["owed"] == 0 and lines[4]["top"] == "JH"  # no attack

    def test_a_jack_draws_two_when_the_option_is_on(self):
        table = deal([["JH", "9S"], ["JS", "3D"], ["2S", "4D"]], ["5H"])
        lines = play(["0 JH", "1 JS", "2 2S", "0 take"], table, jack_draws_two=True)
        assert [line["owed"] for line in lines[1:4]] == [2, 4, 6]
        assert len(lines[4]["hands"][0]) == 7
        lines = play(["0 JH", "1 draw"], table, jack_draws_two=True)
        refused(lines[2], "You owe 2 cards: take them all or answer with a two or a jack.")

    def test_with_jack_draws_two_a_two_still_does_not_go_on_a_jack_of_another_suit(self):
        table = deal([["JH", "9S"], ["3D", "6D"], ["2S", "4D"]], ["5H"])
        lines = play(["0 JH", "1 take", "2 2S"], table, jack_draws_two=True)
        assert lines[2]["owed"] == 0 and lines[2]["to_act"] == 2
        assert legal(lines[2]) == {("draw", None, None)}
        refused(lines[3], "That card does not follow the jack of hearts.")


class TestJoker:
    TABLE = deal([["XR", "9S"], ["5C", "3D"], ["7S", "4D", "QC"]], ["5H"], jokers=True)

    def test_a_joker_goes_on_anything_and_makes_the_next_take_five(self):
        lines = play(["0 XR", "1 take"], self.TABLE, jokers=True)
        assert lines[1]["owed"] == 5 and lines[1]["suit"] is None
        assert len(lines[2]["hands"][1]) == 7
        assert lines[2]["suit"] is None and lines[2]["top"] == "XR"

    def test_after_its_five_anything_goes(self):
        lines = play(["0 XR", "1 take", "2 4D"], self.TABLE, jokers=True)
        assert {c for t, c, _ in legal(lines[2]) if t == "play"} == set(lines[2]["hands"][2])
        assert lines[3]["suit"] == "D" and lines[3]["top"] == "4D"

    def test_a_seven_on_the_joker_names_a_suit_as_usual(self):
        lines = play(["0 XR", "1 take", "2 7S H"], self.TABLE, jokers=True)
        assert lines[3]["suit"] == "H" and lines[3]["top"] == "7S"

    def test_a_joker_answers_a_two(self):
        table = deal([["2H", "9S"], ["XB", "3D"], ["4D", "6D"]], ["5H"], jokers=True)
        lines = play(["0 2H", "1 XB", "2 take"], table, jokers=True)
        assert lines[2]["owed"] == 7 and len(lines[3]["hands"][2]) == 9

    def test_jokers_are_off_unless_chosen(self):
        with pytest.raises(ValueError, match="not in this deck"):
            play([], self.TABLE)
        assert max(GAME.new_match(GAME.options_from_json({}), 3).stock) < 52


class TestAce:
    def test_with_two_players_the_aces_player_acts_again(self):
        table = deal([["AH", "9H", "3C"], ["8C", "AS", "6S"]], ["5H"])
        lines = play(["0 AH", "1 draw", "1 6S", "1 sit_out", "0 9H"], table, players=2)
        assert lines[1]["skip"] and lines[1]["to_act"] == 1
        assert legal(lines[1]) == {("play", "AS", None), ("sit_out", None, None)}
        refused(
            lines[2],
            "You cannot draw while an ace makes you miss this turn: pass it on with an ace or sit out.",
        )
        refused(lines[3], "An ace is making you miss this turn: pass it on with an ace or sit out.")
        assert lines[4]["skip"] is False and lines[4]["to_act"] == 0
        assert lines[5]["ok"] and lines[5]["to_act"] == 1

    def test_a_seven_cannot_dodge_a_skip(self):
        table = deal([["AH", "9H"], ["7C", "6S"]], ["5H"])
        lines = play(["0 AH", "1 7C S"], table, players=2)
        refused(lines[2], "A seven cannot dodge a skip: pass it on with an ace or sit out.")

    def test_with_three_players_the_skipped_turn_goes_to_the_next(self):
        table = deal([["AH", "9S"], ["8C", "6S"], ["KH", "10S"]], ["5H"])
        lines = play(["0 AH", "1 sit_out", "2 KH"], table)
        assert lines[2]["to_act"] == 2 and lines[2]["skip"] is False and lines[2]["top"] == "AH"
        assert lines[3]["ok"]

    def test_an_ace_passes_the_skip_on(self):
        table = deal([["AH", "9S"], ["AC", "6S"], ["KH", "10S"], ["QD", "4S"]], ["5H"])
        lines = play(["0 AH", "1 AC", "2 sit_out", "3 QD"], table, players=4)
        assert lines[2]["skip"] and lines[2]["to_act"] == 2 and lines[2]["suit"] == "C"
        assert lines[3]["to_act"] == 3 and not lines[3]["skip"]
        refused(lines[4], "That card does not follow the ace of clubs.")

    def test_with_two_players_a_passed_ace_comes_back(self):
        table = deal([["AH", "9S", "AD"], ["AC", "6S"]], ["5H"])
        lines = play(["0 AH", "1 AC", "0 AD", "1 sit_out"], table, players=2)
        assert [line["to_act"] for line in lines[1:]] == [1, 0, 1, 0]


class TestCourtFollows:
    @pytest.mark.parametrize(
        ("top", "court", "name"),
        [("2S", "JH", "the 2 of spades"), ("3D", "QC", "the 3 of diamonds"), ("4C", "KS", "the 4 of clubs")],
    )
    def test_a_court_card_follows_its_small_card_only_with_the_option(self, top, court, name):
        table = deal([[court, "9H"], ["8C", "6S"], ["10S", "5H"]], [top])
        lines = play([f"0 {court}"], table, court_follows=True)
        assert ("play", court, None) in legal(lines[0])
        assert lines[1]["top"] == court and lines[1]["suit"] == court[-1]
        refused(play([f"0 {court}"], table)[1], f"That card does not follow {name}.")

    @pytest.mark.parametrize(("top", "fitting"), [("JS", {"3S"}), ("QC", {"9C"}), ("KD", {"4D"})])
    def test_only_that_way_round(self, top, fitting):
        table = deal([["2H", "3S", "4D", "9C"], ["8C", "6S"], ["10S", "5H"]], [top])
        lines = play([], table, court_follows=True)
        assert {c for t, c, _ in legal(lines[0]) if t == "play"} == fitting

    def test_never_on_owed_cards(self):
        table = deal([["2H", "9S"], ["JD", "6S"], ["JC", "10S"]], ["5H"])
        lines = play(["0 2H", "1 JD", "1 take", "2 JC"], table, court_follows=True)
        refused(lines[2], "You must take the cards you owe or answer with a two.")
        # Once taken, the two on top is an ordinary card: the jack may follow it.
        assert ("play", "JC", None) in legal(lines[3])
        assert lines[4]["ok"] and lines[4]["owed"] == 0 and lines[4]["suit"] == "C"


class TestStock:
    def test_reshuffle_when_drawing_from_an_empty_stock(self):
        table = deal([["9S", "3S"], ["8C", "6S"], ["KH", "10S"]], ["2C", "4C", "5H"], rest=1)
        lines = play(["0 draw", "1 draw", "2 draw"], table)
        assert lines[0]["stock_count"] == 0 and lines[0]["pile_count"] == 3
        assert lines[1]["stock_count"] == 1 and lines[1]["pile_count"] == 1 and lines[1]["top"] == "5H"
        assert len(lines[1]["hands"][0]) == 3
        assert lines[2]["stock_count"] == 0 and lines[2]["to_act"] == 2
        assert legal(lines[2]) == {("play", "KH", None)}
        refused(lines[3], "There is nothing left to draw.")
        events = events_of(table, ["0 draw"])
        assert events[-1] == [{"type": "reshuffled", "count": 2}, {"type": "drew", "seat": 0, "count": 1}]

    def test_the_reshuffle_uses_the_matchs_rng(self):
        table = deal([["9S", "3S"], ["8C", "6S"], ["KD", "10S"]], ["2C", "4C", "6D", "QH", "5H"], rest=1)
        drawn = {tuple(play(["0 draw"], table, seed=seed)[1]["hands"][0]) for seed in range(30)}
        assert len(drawn) == 4  # each of the four cards under the top can come up
        assert play(["0 draw", "1 draw"], table, seed=5) == play(["0 draw", "1 draw"], table, seed=5)

    def test_owed_cards_beyond_stock_and_pile_are_written_off(self):
        table = deal([["2H", "9S"], ["2S", "3D"], ["KD", "10S"]], ["9C", "5H"], rest=2)
        lines = play(["0 2H", "1 2S", "2 take"], table)
        assert lines[2]["owed"] == 4 and lines[2]["stock_count"] == 0 and lines[2]["pile_count"] == 4
        assert lines[3]["owed"] == 0 and lines[3]["stock_count"] == 0 and lines[3]["pile_count"] == 1
        assert len(lines[3]["hands"][2]) == len(lines[2]["hands"][2]) + 3
        events = events_of(table, ["0 2H", "1 2S", "2 take"])[-1]
        assert events == [
            {"type": "reshuffled", "count": 3},
            {"type": "took", "seat": 2, "count": 3},
            {"type": "written_off", "seat": 2, "count": 1},
        ]


class TestPassing:
    def test_a_player_with_nothing_possible_passes_by_itself(self):
        # Seat 0 holds every heart, seven and nine and draws the last card anyway;
        # seats 1 and 2 then hold nothing that fits and nothing is left to draw.
        hearts_sevens_nines = [c for c in CODES[:52] if c[-1] == "H" or c[:-1] in ("7", "9")]
        hand0 = [c for c in hearts_sevens_nines if c != "9H"]
        others = [c for c in CODES[:52] if c not in hearts_sevens_nines and c != "5S"]
        table = deal([hand0, others[:20], others[20:]], ["5S", "9H"])
        lines = play(["0 draw", "0 7H H", "1 draw"], table)
        assert lines[1]["to_act"] == 0 and lines[1]["stock_count"] == 0 and lines[1]["pile_count"] == 1
        assert not lines[1]["round_over"]
        events = events_of(table, ["0 draw"])[-1]
        assert events[-2:] == [{"type": "passed", "seat": 1}, {"type": "passed", "seat": 2}]
        # After the seven the nine under it can be drawn again, so seat 1 must draw.
        assert lines[2]["to_act"] == 1 and legal(lines[2]) == {("draw", None, None)}
        assert lines[3]["ok"] and lines[3]["to_act"] == 0  # seat 2 passed again

    # With a full deck every seat never passes in a row: once nothing is left to draw, every card
    # but the top is in a hand, and so are the other cards of the suit in force. The nobody-out
    # round is reached here by taking cards out of play.

    def _stalled(self, hands):
        """Three seats holding ``hands``, the pile 5S under 9H, no stock; the rest out of play."""
        state = GAME.new_match(
            GAME.options_from_json({"players": 3}), 0, deal([["3S"], ["4S"], ["6S"]], ["9H"])
        )
        state.hands = [sum(1 << card(c) for c in hand) for hand in hands]
        state.stock = []
        state.pile = [card("5S"), card("9H")]
        return state

    def test_the_round_ends_with_nobody_out_sparing_the_single_lowest(self):
        state = self._stalled([["3S", "4C"], ["KS", "QC"], ["5C", "4D"]])
        assert [GAME.action_to_json(a) for a in GAME.legal_actions(state)] == [{"type": "draw"}]
        events = do(state, type="draw")
        assert [e["type"] for e in events] == [
            "reshuffled",
            "drew",
            "passed",
            "passed",
            "passed",
            "round_over",
        ]
        assert [e["seat"] for e in events[2:5]] == [1, 2, 0]
        assert events[-1]["out"] is None and events[-1]["charges"] == [12, 20, 0]
        report = GAME.scenario_report(state)
        assert report["charges"] == [12, 20, 0] and report["totals"] == [12, 20, 0] and report["round_over"]
        assert GAME.awaiting_deal(state) and GAME.to_act(state) is None

    def test_a_shared_lowest_total_means_nobody_is_charged(self):
        state = self._stalled([["3S", "4C"], ["KS", "QC"], ["5C", "4D", "3D"]])
        events = do(state, type="draw")
        assert events[-1]["charges"] == [0, 0, 0] and state.totals == [0, 0, 0]

    def test_any_play_or_draw_resets_the_count(self):
        state = self._stalled([["3S", "4S"], ["KS", "QS"], ["7D", "4D"]])
        events = do(state, type="draw")
        assert events[-1] == {"type": "passed", "seat": 1} and GAME.to_act(state) == 2
        assert GAME.view(state, 2)["passes"] == 1
        do(state, type="play", card="7D", suit="C")
        assert GAME.view(state, 2)["passes"] == 0 and GAME.to_act(state) == 0
        events = do(state, type="draw")
        # Without the reset the third pass in a row would have been seat 2's.
        assert [e["seat"] for e in events if e["type"] == "passed"] == [1, 2, 0]
        assert events[-1]["charges"] == [3 + 4 + 5 + 9, 20, 0]


class TestEndOfRound:
    def test_the_last_card_ends_the_round_and_voids_its_attack(self):
        table = deal([["2H"], ["KS", "7C"], ["AS", "3D"], ["XR", "10D"]], ["5H"], jokers=True)
        lines = play(["0 2H", "1 draw"], table, players=4, jokers=True)
        last = lines[1]
        assert last["round_over"] and last["owed"] == 0 and last["to_act"] is None and last["legal"] == []
        assert last["charges"] == [0, 30, 4, 60] and last["totals"] == [0, 30, 4, 60]
        assert not last["match_over"]
        assert lines[2]["ok"] and lines[2]["round"] == 2  # the next action deals round 2 (dealer 0)

    def test_the_last_ace_with_two_players_ends_the_round(self):
        lines = play(["0 AH"], deal([["AH"], ["KS", "7C"]], ["5H"]), players=2)
        assert lines[1]["round_over"] and not lines[1]["skip"] and lines[1]["charges"] == [0, 30]

    def test_a_last_seven_still_names_its_suit(self):
        lines = play(["0 7D", "0 7D S"], deal([["7D"], ["KS", "3C"]], ["5H"]), players=2)
        refused(lines[1], "Name a suit for your seven.")
        assert lines[2]["round_over"] and lines[2]["suit"] == "S"

    def test_card_values(self):
        hands = [["2D"], ["3S", "4S", "5S", "6S", "8S", "9S", "10S", "JS", "QS", "KS", "AS", "7S", "XR"]]
        lines = play(["0 2D"], deal(hands, ["5D"], jokers=True), players=2, jokers=True)
        assert lines[1]["charges"] == [0, 3 + 4 + 5 + 6 + 8 + 9 + 10 + 10 + 10 + 10 + 1 + 20 + 50]

    def test_the_view_lays_the_hands_open_only_once_the_round_is_over(self):
        state = GAME.new_match(
            GAME.options_from_json({"players": 2}), 0, deal([["AH"], ["KS", "7C"]], ["5H"])
        )
        assert GAME.view(state, 1)["hands"] is None
        do(state, type="play", card="AH")
        view = GAME.view(state, 1)
        assert view["hands"][0] == [] and set(view["hands"][1]) >= {"KS", "7C"} and view["out"] == 0


class TestMatchEnd:
    def test_reaching_the_target_ends_the_match_with_the_lowest_total_winning(self):
        lines = play(["0 9H", "1 8C"], deal([["9H"], ["8C"]], ["5H"], rest=1), players=2)
        assert lines[1]["match_over"] and lines[1]["winners"] == [0] and lines[1]["losers"] == [1]
        assert lines[1]["totals"][1] >= 101
        refused(lines[2], "The match is over.")

    def test_a_shared_lowest_total_means_no_winner(self):
        first = deal([["9H"], ["3S", "2D"], ["KS", "QS"]], ["5H"], dealer=2)
        second = deal([["3S", "2D"], ["9H"], ["KS"]], ["5H"], rest=2)
        del second["dealer"]  # moves on to seat 0, so seat 1 starts
        lines = play(["0 9H", "1 9H"], first, second, players=3)
        assert lines[1]["totals"] == [0, 5, 20] and not lines[1]["match_over"] and lines[1]["winners"] == []
        assert lines[2]["match_over"] and lines[2]["totals"][:2] == [5, 5] and lines[2]["totals"][2] >= 101
        assert lines[2]["winners"] == [] and lines[2]["losers"] == [2]

    def test_everyone_at_or_past_the_target_loses(self):
        others = [c for c in CODES[:52] if c not in ("9H", "5H", "8C", "8D")]
        table = deal([["9H"], ["8C", *others[:24]], ["8D", *others[24:]]], ["5H"])
        lines = play(["0 9H"], table, players=3)
        assert lines[1]["winners"] == [0] and lines[1]["losers"] == [1, 2]

    @pytest.mark.parametrize(("target", "over"), [(101, True), (301, True), (501, False)])
    def test_targets(self, target, over):
        table = deal([["9H"], ["8C"]], ["5H"], rest=1)  # seat 1 is charged 392 - 9 - 5 = 378
        lines = play(["0 9H"], table, players=2, target=target)
        assert lines[1]["totals"] == [0, 378] and lines[1]["match_over"] is over
