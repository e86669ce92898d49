"""History keeps a player a moderator replaced mid-match: it reads the match's participants, not the
table's seats as they are now."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from gameplay.models import Match, Move, Participant, SeatChange
from history import selectors
from tables.models import Seat
from tests.factories import make_user
from tests.history.helpers import play_out, seated_match


def match_url(match: Match, name: str = "match") -> str:
    return reverse(f"history:{name}", args=[match.pk])


@pytest.fixture
def replaced(ana, ion) -> Match:
    """Ana (seat 0) and Ion play a private Americana match to its end; the record then says a moderator
    replaced Ana with a normal bot one move into round 2, and the table's seat now holds that bot."""
    match = play_out(seated_match("americana", [ana, ion], {"players": 2}, private=True))
    assert match.rounds.count() >= 2
    left_after = selectors.replay_step(match, 0).boundaries[1][1]  # round 1's moves, and one more
    Participant.objects.filter(match=match, user=ana, seat=0).update(until_move=left_after)
    Participant.objects.create(match=match, seat=0, bot_level="normal", from_move=left_after)
    SeatChange.objects.create(match=match, seat=0, kind=SeatChange.Kind.REPLACED, after_move=left_after)
    Seat.objects.filter(table_id=match.table_id, position=0).update(user=None, bot_level="normal")
    Move.objects.filter(match=match, seat=0, seq__gt=left_after).update(actor=Move.Actor.BOT)
    return match


def ana_left_after(match: Match) -> int:
    return Participant.objects.get(match=match, user__username="ana").until_move


def step_of_move(match: Match, seq: int) -> int:
    """The replay step of move ``seq``: its number, plus one for each deal after the first before it."""
    deals = selectors.replay_step(match, 0).boundaries
    return seq - 1 + sum(1 for dealt, (_round, at) in enumerate(deals) if at - dealt < seq)


def test_a_replaced_player_still_finds_the_match_with_the_seat_she_held(client, replaced, ana):
    client.force_login(ana)
    rows = client.get(reverse("history:mine")).context["rows"]
    assert [row.match.pk for row in rows] == [replaced.pk]
    assert rows[0].outcome == selectors.outcome_of(replaced, 0)
    assert rows[0].opponents == ["ion"]
    outcome = "won" if replaced.result["winners"] == [0] else "lost"
    assert [
        row.match.pk for row in client.get(reverse("history:mine"), {"result": outcome}).context["rows"]
    ] == [replaced.pk]


def test_the_match_page_and_its_score_sheet_name_her_then_the_bot(client, replaced, ana):
    client.force_login(ana)  # a private table: she may look, having played there
    response = client.get(match_url(replaced))
    assert response.status_code == 200
    assert response.context["sheet"].sides == ["ana → Bot 1", "ion"]
    assert response.context["my_outcome"]
    page = response.text
    seat = page[page.index('data-testid="match-seat"') :]
    seat = seat[: seat.index("</li>")]
    assert reverse("history:player", args=["ana"]) in seat and "Bot 1" in seat and ">normal<" in seat
    assert "bot ·" not in seat  # its name says it is a bot; the badge gives its level
    assert seat.index("ana") < seat.index("Bot 1")
    csv_text = client.get(match_url(replaced, "sheet_csv")).content.decode("utf-8")
    assert "ana → Bot 1: charged" in csv_text
    client.force_login(make_user("eve"))
    assert client.get(match_url(replaced)).status_code == 403


def test_the_replay_names_whoever_held_the_seat_at_each_move(client, replaced, ana):
    last_of_ana = ana_left_after(replaced)
    Move.objects.filter(match=replaced, seq=last_of_ana - 1).update(actor=Move.Actor.TAKEOVER)
    client.force_login(ana)

    def step(seq: int):
        response = client.get(match_url(replaced, "replay"), {"step": step_of_move(replaced, seq)})
        return response.context["step"], response.text

    held, _page = step(last_of_ana)
    assert (held.seats[0].name, held.seats[0].is_bot) == ("ana", False)
    after, _page = step(last_of_ana + 1)
    assert (after.seats[0].name, after.seats[0].is_bot) == ("Bot 1", True)
    assert after.seats[1].name == "ion"
    stood_in, page = step(last_of_ana - 1)
    seat = Move.objects.get(match=replaced, seq=last_of_ana - 1).seat
    assert stood_in.actor == "takeover" and f"The bot for {['ana', 'ion'][seat]} " in page
    her_move = Move.objects.filter(match=replaced, seat=0, seq__lte=last_of_ana).last()
    bot_move = Move.objects.filter(match=replaced, seat=0, seq__gt=last_of_ana).first()
    assert step(her_move.seq)[0].who == "ana"
    bot_step, page = step(bot_move.seq)
    # The bot's name says it is one: the step is told once, in its own words.
    assert bot_step.who == "Bot 1" and bot_step.lines[0].startswith("Bot 1 ") and "(a bot)" not in page
    round_two_dealt_at = step_of_move(replaced, last_of_ana) - 1
    round_two = client.get(match_url(replaced, "replay"), {"step": round_two_dealt_at}).context["step"]
    assert round_two.kind == "deal" and round_two.seats[0].name == "ana"  # she plays its first move


def test_her_profile_counts_the_match_and_only_the_rounds_she_played(client, replaced, ana, ion):
    client.force_login(ion)
    profile = client.get(reverse("history:player", args=["ana"])).context["profile"]
    stats = {stat.game: stat for stat in profile.stats}
    assert stats["americana"].played == 1
    assert stats["americana"].won == int(replaced.result["winners"] == [0])
    first_round = replaced.rounds.get(number=1).summary
    assert stats["americana"].average == first_round["charges"][0]  # round 2 on were the bot's
    assert [row.match.pk for row in profile.recent] == [replaced.pk]  # ion played there too
    client.force_login(make_user("eve"))
    assert client.get(reverse("history:player", args=["ana"])).context["profile"].recent == []


def test_the_admin_finds_the_match_by_the_replaced_player_and_shows_who_held_each_seat(
    client, replaced, moderator
):
    client.force_login(moderator)
    changelist = client.get(reverse("admin:gameplay_match_changelist"), {"q": "ana"})
    assert [match.pk for match in changelist.context["cl"].result_list] == [replaced.pk]
    assert "ana, bot, ion" in changelist.text
    page = client.get(reverse("admin:gameplay_match_change", args=[replaced.pk])).text
    assert page.count('class="field-from_move"') == 3 and page.count('class="field-after_move"') == 1
    assert "replaced by a bot" in page


def test_the_lists_read_every_matchs_participants_at_once(client, ana, ion):
    """The queries for "My matches" and a profile do not grow with the matches listed or their players."""
    seated_match("americana", [ana, ion], {"players": 2})
    client.force_login(ana)
    urls = (reverse("history:mine"), reverse("history:player", args=["ana"]))

    def queries() -> list[int]:
        counts = []
        for url in urls:
            with CaptureQueriesContext(connection) as captured:
                assert client.get(url).status_code == 200
            counts.append(len(captured.captured_queries))
        return counts

    few = queries()
    for _ in range(3):
        seated_match("classic", [ion, ana], {"players": 4})
    assert queries() == few
