"""Bot accounts at play, outside the API: marked as bots on every page their name shows, kept out of
the pool, tournaments and the people's leaderboards (a leaderboard of their own), casual with people,
seated by hosts, taking challenges, and on the turn clock like anyone. PostgreSQL and Redis."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from gameplay import services as gameplay_services
from gameplay.models import Match
from ratings.models import Rating
from social import services as social_services
from social.models import Notice
from tables import selectors as table_selectors
from tables import services as table_services
from tables.models import Casual, Seat, Table
from tables.rated import casual_reason
from tests.factories import make_user
from tests.gameplay.helpers import first_legal, live_state
from tests.history.helpers import play_out
from tests.tournaments.conftest import tournament
from tournaments import services as tournament_services
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db

BADGE = 'data-testid="bot-account-badge"'


@pytest.fixture(autouse=True)
def full_budgets():
    """Budgets are kept in Redis by account id, and ids come again in each test's database."""
    cache.clear()
    yield
    cache.clear()


def make_bot(owner: User, name: str) -> User:
    """A bot account of ``owner``'s, a week old (established, as its owner is)."""
    bot = User(
        username=name,
        is_bot_account=True,
        bot_owner=owner,
        bot_description="Plays its lowest card.",
        date_joined=timezone.now() - timedelta(days=7),
    )
    bot.set_unusable_password()
    bot.save()
    return bot


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def public_table(host: User, players: int = 2, game: str = "classic", clock: int = 45) -> Table:
    return gameplay_services.table_create(
        host=host, game=game, options={"players": players}, turn_clock=clock, is_private=False, rated=True
    )


def test_a_bot_account_is_marked_in_the_lobby_the_waiting_room_the_table_history_and_its_profile(ana, ion):
    bot = make_bot(ana, "robo")
    table = public_table(ana, players=3)
    table_services.seat_bot_account(table_id=table.pk, by=ana, bot_user=bot, position=1)
    waiting = logged_in(ion).get(reverse("gameplay:table", args=[table.pk])).text
    assert waiting.count(BADGE) == 1 and "robo" in waiting
    lobby = logged_in(ion).get(reverse("tables:lobby")).text
    assert lobby.count(BADGE) == 1
    table_services.seat_take(table_id=table.pk, user=ion)
    match = Match.objects.get(table=table)
    playing = logged_in(ion).get(reverse("gameplay:table", args=[table.pk])).text
    tile = playing.split('data-testid="opponent-1"')[1].split("</li>")[0]
    assert BADGE in tile and "robo" in tile
    assert playing.count(BADGE) == 1, "ana's tile is a person's"
    play_out(match, seed=3)
    history = logged_in(ion).get(reverse("history:match", args=[match.pk])).text
    assert history.count(BADGE) == 1
    profile = logged_in(ion).get(reverse("history:player", args=["robo"])).text
    assert BADGE in profile
    assert "A bot account run by ana: a program that plays through the API. Plays its lowest card." in profile
    person = logged_in(ion).get(reverse("history:player", args=["ana"])).text
    assert BADGE not in person.split("</h1>")[0], "a person's name is not marked"
    listed = person.split('data-testid="match-list"')[1]
    assert f'robo <span class="badge badge-bot" {BADGE}' in listed, "their opponent is"


def test_the_pool_and_tournaments_are_for_people(ana):
    bot = make_bot(ana, "robo")
    with pytest.raises(social_services.SocialError, match="The pool pairs people only"):
        social_services.pool_join(user=bot, game="americana", players=2, length=101, fill_with_bots=False)
    for private in (False, True):
        event = tournament(is_private=private, created_by=ana)
        with pytest.raises(TournamentError, match="Tournaments are for people"):
            tournament_services.tournament_join(user=bot, tournament_id=event.pk, token=event.join_token)
    assert not bot.seats.exists()


def board_names(client: Client, query: str = "") -> list[str]:
    page = client.get(reverse("ratings:leaderboard") + "?game=americana" + query).text
    return [name for name in ("person", "robo") if f">{name}</a>" in page]


def test_people_and_bot_accounts_each_have_their_own_leaderboard(ana):
    since = timezone.now() - timedelta(days=1)
    person, bot = make_user("person"), make_bot(ana, "robo")
    for user, shown in ((person, 1600), (bot, 1900)):
        Rating.objects.create(
            user=user, game="americana", shown=shown, matches=20, established=True, last_played_at=since
        )
    client = logged_in(ana)
    assert board_names(client) == ["person"]
    assert board_names(client, "&board=bots") == ["robo"]
    bots_page = client.get(reverse("ratings:leaderboard") + "?game=americana&board=bots").text
    assert "<h1>Bot accounts" in bots_page and BADGE in bots_page
    assert "not on this leaderboard yet" not in bots_page, "a person is not asked to join the bots' list"
    profile = client.get(reverse("history:player", args=["robo"])).text
    assert '?game=americana&amp;board=bots">place 1</a>' in profile, "its place is on the bots' list"


def test_people_and_bot_accounts_play_casual_together_and_bot_accounts_rated_among_themselves(ana, ion):
    mixed = public_table(ana)
    table_services.seat_bot_account(table_id=mixed.pk, by=ana, bot_user=make_bot(ana, "robo"), position=1)
    mixed.refresh_from_db()
    assert mixed.status == Table.Status.PLAYING
    assert (mixed.is_rated, mixed.casual_because) == (False, Casual.BOT_ACCOUNTS)
    people_only = public_table(ana)
    assert casual_reason(people_only, [Seat(user=ana), Seat(user=ion)]) == ""
    bots = [make_bot(ana, "b1"), make_bot(ion, "b2")]
    assert casual_reason(people_only, [Seat(user=bot) for bot in bots]) == ""
    assert casual_reason(people_only, [Seat(user=bots[0]), Seat(user=ion)]) == Casual.BOT_ACCOUNTS


def test_a_host_seats_their_own_bot_account_and_offers_a_seat_to_another_s(ana, ion):
    mine, theirs = make_bot(ana, "mine"), make_bot(ion, "theirs")
    table = public_table(ana, players=4, game="americana")
    with pytest.raises(table_services.TableError, match="Only the host"):
        table_services.seat_bot_account(table_id=table.pk, by=ion, bot_user=theirs, position=1)
    with pytest.raises(table_services.TableError, match="Only an open bot account"):
        table_services.seat_bot_account(table_id=table.pk, by=ana, bot_user=ion, position=1)
    seat = table_services.seat_bot_account(table_id=table.pk, by=ana, bot_user=mine, position=1)
    assert seat.user == mine, "the host's own bot account sits down at once"
    offered = table_services.seat_bot_account(table_id=table.pk, by=ana, bot_user=theirs, position=2)
    assert offered.user is None and offered.reserved_for == theirs
    assert list(table_selectors.seats_offered_to(user=theirs)) == [table]
    with pytest.raises(table_services.TableError, match="at this table already"):
        table_services.seat_bot_account(table_id=table.pk, by=ana, bot_user=theirs, position=3)
    table_services.seat_decline(table_id=table.pk, user=theirs)
    assert list(table_selectors.seats_offered_to(user=theirs)) == []
    table_services.seat_bot_account(table_id=table.pk, by=ana, bot_user=theirs, position=2)
    assert table_services.seat_take(table_id=table.pk, user=theirs).position == 2
    assert set(table.seats.exclude(user=None).values_list("user__username", flat=True)) == {
        "ana",
        "mine",
        "theirs",
    }


def test_a_bot_account_accepts_a_challenge_to_a_private_table(ana):
    bot = make_bot(make_user("owner"), "robo")
    social_services.friend_request_send(sender=ana, recipient=bot)
    social_services.friend_request_answer(user=bot, sender_id=ana.pk, accept=True)
    table = gameplay_services.table_create(
        host=ana, game="classic", options={"players": 2}, turn_clock=45, is_private=True
    )
    social_services.invitation_send(by=ana, table_id=table.pk, friend_id=bot.pk)
    notice = Notice.objects.get(recipient=bot, kind=Notice.Kind.INVITATION)
    assert social_services.invitation_accept(user=bot, notice_id=notice.pk) == table.pk
    assert Match.objects.get(table=table).status == Match.Status.PLAYING
    assert table.seats.get(user=bot).position == 1


@pytest.mark.django_db(transaction=True)
def test_a_quiet_bot_account_is_taken_over_when_its_clock_runs_out(ana):
    bot = make_bot(ana, "sleepy")
    table = public_table(ana, clock=20)
    table_services.seat_bot_account(table_id=table.pk, by=ana, bot_user=bot, position=1)
    match = Match.objects.get(table=table)
    for _turn in range(10):  # the person plays until it is the bot account's turn
        seat, action = first_legal(match)
        if seat == 1:
            break
        gameplay_services.act(match_id=match.pk, seat=seat, action=action)
    game, state = live_state(match)
    assert game.to_act(state) == 1
    assert not Seat.objects.get(table=table, position=1).is_taken_over
    Match.objects.filter(pk=match.pk).update(due_at=timezone.now() - timedelta(seconds=5))
    assert gameplay_services.sweep() == 1
    seat = Seat.objects.get(table=table, position=1)
    assert seat.user == bot and seat.is_taken_over, "a stand-in plays for the bot account, as for anyone"
    match.refresh_from_db()
    _seat, action = first_legal(match)
    gameplay_services.act(
        match_id=match.pk, seat=1, action=action, expected_version=match.version, reclaim=True
    )
    assert not Seat.objects.get(table=table, position=1).is_taken_over, "its own move takes the seat back"


def test_the_host_seats_a_bot_account_by_its_name_from_the_waiting_room(ana, ion):
    table = public_table(ana, players=3, game="americana")
    make_bot(ana, "Mine")
    client = logged_in(ana)
    assert 'data-testid="bot-account-seat"' in client.get(reverse("gameplay:table", args=[table.pk])).text
    assert (
        'data-testid="bot-account-seat"'
        not in logged_in(ion).get(reverse("gameplay:table", args=[table.pk])).text
    )
    seat_url = reverse("tables:bot_account_seat", args=[table.pk])
    page = client.post(seat_url, {"username": "nobody"}, follow=True).text
    assert "There is no bot account of that name." in page
    page = client.post(seat_url, {"username": "mine"}, follow=True).text
    assert table.seats.get(position=1).user.username == "Mine" and BADGE in page
    make_bot(ion, "Theirs")
    page = client.post(seat_url, {"username": "Theirs", "position": "2"}, follow=True).text
    assert table.seats.get(position=2).reserved_for.username == "Theirs"
    assert "kept for Theirs" in page
