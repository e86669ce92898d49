"""The table's page at a table at its own pace: the clock in days and hours, the pace in the title, a
player on holiday shown to the others, no "I'm back" while a bot makes a move whose time ran out, and
"since you were here": the moves made since the person's previous visit, in words from their public
events only (the summary for one seat never names another's cards), with a banner for a move a bot made
for them."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots.services import bot_turn
from gameplay import services
from gameplay.games.narration import describe
from gameplay.games.words import card_name
from gameplay.models import Match, Move, Participant
from tables.models import Pace
from tests.channels import open_socket
from tests.gameplay.helpers import first_legal, human_match, live_state

pytestmark = pytest.mark.django_db(transaction=True)

HOUR = 3600.0
"""An hour at own pace in these tests, in seconds: a whole one, so a minute of a slow run shows in no
time left."""


@pytest.fixture(autouse=True)
def short_hours(settings):
    settings.OWN_PACE_HOUR_SECONDS = HOUR


def page_of(user, match: Match) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    response = client.get(reverse("gameplay:table", args=[match.table_id]))
    assert response.status_code == 200
    return unescape(response.content.decode())


def news_of(page: str) -> str:
    """The "since you were here" part of a page ("" without one)."""
    found = re.search(r'<details class="pace-news".*?</details>', page, re.S)
    return found.group(0) if found else ""


def play(match: Match, moves: int) -> list[Move]:
    """``moves`` first legal moves, whoever is to act; the moves made."""
    for _ in range(moves):
        match.refresh_from_db()
        mover, action = first_legal(match)
        services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
    match.refresh_from_db()
    return list(Move.objects.filter(match=match).order_by("-seq")[:moves])[::-1]


def test_the_clock_reads_in_days_and_hours_and_the_title_says_the_pace():
    match, users = human_match("classic", 2, pace_hours=Pace.DAYS_2)
    match.refresh_from_db()
    page = page_of(users[match.to_act], match)
    clock = re.search(r'<span class="clock is-pace"[^>]*>([^<]*)</span>', page)
    assert clock is not None
    assert clock.group(1) in ("1 day 23 hours left", "2 days left")
    assert "2 days a move" in page
    watcher = page_of(users[1 - match.to_act], match)
    assert "is playing" in watcher and 'class="clock is-pace"' in watcher


def test_a_player_on_holiday_is_shown_to_the_others():
    match, users = human_match("americana", 3, pace_hours=Pace.DAY_1)
    holiday = services.holiday_start(user=users[1], days=3)
    until = timezone.localtime(holiday.ends_at).strftime("%-d %B")
    page = page_of(users[0], match)
    tile = re.search(r'data-testid="opponent-1".*?</li>', page, re.S).group(0)
    assert f"on holiday until {until}" in tile
    assert "on holiday" not in re.search(r'data-testid="opponent-2".*?</li>', page, re.S).group(0)


def test_since_you_were_here_tells_the_moves_made_since_the_previous_visit_in_words():
    match, users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    ana = users[0]
    assert news_of(page_of(ana, match)) == "", "nothing was played yet"
    made = play(match, 3)
    news = news_of(page_of(ana, match))
    assert news, "three moves since"
    names = [user.username for user in users]
    told = [describe(event, names) for move in made if move.seat != 0 for event in move.events]
    assert [line for line in told if line] == re.findall(r"<li>(.*?)</li>", news)
    assert f"{names[1]} played the " in news
    assert news_of(page_of(ana, match)) == "", "seen now: the next visit starts here"


def test_the_summary_for_one_seat_never_names_the_cards_another_holds():
    match, users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    page_of(users[0], match)
    play(match, 6)
    news = news_of(page_of(users[0], match))
    assert news
    game, state = live_state(match)
    for card in game.view(state, 1)["hand"]:
        assert card_name(card) not in news


def test_a_move_a_bot_made_when_the_time_ran_out_is_told_with_a_banner_and_no_back_button():
    match, users = human_match("classic", 2, pace_hours=Pace.HOURS_12)
    match.refresh_from_db()
    mover = match.to_act
    assert 'value="play"' in page_of(users[mover], match)
    Match.objects.filter(pk=match.pk).update(due_at=timezone.now() - timedelta(seconds=5))
    assert services.sweep() == 1
    match.refresh_from_db()
    waiting = page_of(users[mover], match)
    assert "Your time ran out: a bot is making this move for you." in waiting
    assert 'data-testid="back"' not in waiting, 'no "I\'m back" at own pace: the bot hands the seat back'
    assert 'value="play"' not in waiting, "the bot's turn: nothing for the person to play"
    assert bot_turn(match_id=match.pk, expected_version=match.version)
    played = Move.objects.get(match=match, seat=mover)
    card = next((event["card"] for event in played.events if event["type"] == "played"), None)
    news = news_of(page_of(users[mover], match))
    if card is None:  # classic: the bot let a trick go, or fought on for it
        assert "Your time ran out: a bot made your move for you." in news
    else:
        assert f"Your time ran out: a bot played the {card_name(card)} for you." in news
    assert 'data-testid="ran-out"' in news


@pytest.mark.asyncio
async def test_closing_the_last_page_of_the_table_notes_the_match_seen_up_to_then():
    from asgiref.sync import sync_to_async

    match, users = await sync_to_async(human_match)("classic", 2, pace_hours=Pace.HOURS_12)
    socket = await open_socket(f"/ws/tables/{match.table_id}/?lang=en", users[0])
    await socket.receive_from(timeout=5)
    await sync_to_async(play)(match, 2)
    await socket.disconnect()

    def seen() -> int:
        return Participant.objects.get(match=match, user=users[0]).seen_moves

    assert await sync_to_async(seen)() == 2
