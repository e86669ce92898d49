"""The tournament page's socket and the tournaments' part of a table page's socket, over the Redis
channel layer and PostgreSQL: the standing rendered once per language for every page however many
changes come at once, a seating opening the seated person's table only, the heartbeat, who may follow
a private tournament, and a tournament table's banner and its players' way back."""

import asyncio
import json
from collections import Counter
from datetime import timedelta
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone, translation

from tables.fragments import FORBIDDEN
from tests.channels import communicator, open_socket
from tests.factories import make_user
from tests.gameplay.helpers import human_match
from tournaments import consumers, events, services
from tournaments.models import Entry, Tournament

from .conftest import entered, established, play_out, tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def frame(socket, kind: str, timeout: float = 5) -> dict:
    """The next frame of ``kind`` the socket sends within ``timeout``."""
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await socket.receive_from(timeout=timeout))
            if message.get("kind") == kind:
                return message


async def no_frame(socket, kind: str, timeout: float = 1) -> bool:
    """Whether the socket sends no frame of ``kind`` within ``timeout`` (others may come)."""
    try:
        await frame(socket, kind, timeout)
    except TimeoutError:
        return True
    return False


async def html_frame(socket, text: str, timeout: float = 5) -> str:
    """The next frame of a table page's socket that holds ``text``."""
    async with asyncio.timeout(timeout):
        while text not in (received := await socket.receive_from(timeout=timeout)):
            pass
    return received


@pytest.fixture
def renders():
    """The live part's renders, counted by language, each still made."""
    counted: Counter[str] = Counter()
    render = consumers.render_live

    def counting(context: dict) -> str:
        counted[translation.get_language()] += 1
        return render(context)

    with mock.patch.object(consumers, "render_live", counting):
        yield counted


def running_arena_of(*names: str) -> tuple[Tournament, list]:
    """A running arena of two-seat tables with ``names`` in it, their pages open."""
    event = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))
    people = [established(name, rating=1500) for name in names]
    for person in people:
        entered(event, person)
    return event, people


@pytest.fixture
def quiet_heartbeat(settings):
    """No heartbeat during the test: what the pages hear comes from the news alone."""
    settings.PRESENCE_HEARTBEAT_SECONDS = settings.TOURNAMENT_SEEN_EVERY_SECONDS = 600


async def test_a_burst_of_changes_is_rendered_once_per_language_and_the_same_text_reaches_every_page(
    settings, renders, quiet_heartbeat
):
    settings.TOURNAMENT_PUSH_SECONDS = 2
    event, (ana, ion) = await sync_to_async(running_arena_of)("ana", "ion")
    path = f"/ws/tournaments/{event.pk}/"
    english = await open_socket(f"{path}?lang=en", ana)
    first = await frame(english, "live")
    also_english = await open_socket(f"{path}?lang=en", ion)
    assert await frame(also_english, "live") == first  # the text kept, not rendered again
    assert renders == {"en": 1}
    romanian = await open_socket(f"{path}?lang=ro")  # a visitor
    await frame(romanian, "live")  # rendered at the end of the first render's window
    assert renders["ro"] == 1

    # Ten changes in the window that render opened: rendered once each, at the window's end.
    renders.clear()

    def ten_changes() -> None:
        Entry.objects.filter(user=ana).update(points=7)
        for _ in range(10):
            events.tournament_changed(event.pk)

    await sync_to_async(ten_changes)()
    pushed = [await frame(socket, "live") for socket in (english, also_english, romanian)]
    assert pushed[0] == pushed[1] != first
    assert await no_frame(english, "live", timeout=settings.TOURNAMENT_PUSH_SECONDS + 0.5)
    assert renders == {"en": 1, "ro": 1}
    for socket in (english, also_english, romanian):
        await socket.disconnect()


async def test_a_seating_opens_the_table_for_the_seated_people_only(quiet_heartbeat):
    event, (ana, ion, bob) = await sync_to_async(running_arena_of)("ana", "ion", "bob")
    await sync_to_async(Entry.objects.filter(user=bob).update)(paused=True)  # not seated
    pages = [await open_socket(f"/ws/tournaments/{event.pk}/?lang=en", person) for person in (ana, ion, bob)]
    sent = await sync_to_async(services.arena_pair)(tournament_id=event.pk)
    assert set(sent) == {ana.pk, ion.pk}
    assert (await frame(pages[0], "go"))["url"] == f"/tables/{sent[ana.pk]}/"
    assert (await frame(pages[1], "go"))["url"] == f"/tables/{sent[ion.pk]}/"
    assert await no_frame(pages[2], "go")
    for page in pages:
        await page.disconnect()


async def test_the_heartbeat_says_the_page_is_open_and_sends_a_page_that_missed_its_seating(settings):
    settings.TOURNAMENT_SEEN_EVERY_SECONDS = 0.3
    event, (ana, ion) = await sync_to_async(running_arena_of)("ana", "ion")
    sent = await sync_to_async(services.arena_pair)(tournament_id=event.pk)  # no page open to hear it
    page = await open_socket(f"/ws/tournaments/{event.pk}/?lang=en", ana)
    assert (await frame(page, "go"))["url"] == f"/tables/{sent[ana.pk]}/"  # told as it connects
    long_ago = timezone.now() - timedelta(hours=1)
    await sync_to_async(Entry.objects.filter(tournament=event).update)(seen_at=long_ago)
    seen_at = sync_to_async(lambda: dict(Entry.objects.values_list("user_id", "seen_at")))
    for _beat in range(10):  # a beat begun before the change above may be told first
        assert (await frame(page, "go"))["url"] == f"/tables/{sent[ana.pk]}/"  # the heartbeat's
        if (seen := await seen_at())[ana.pk] > long_ago:
            break
    assert seen[ana.pk] > long_ago
    assert seen[ion.pk] == long_ago  # no page of Ion's is open
    await page.disconnect()


async def test_nobody_follows_a_private_tournament_but_its_creator_and_players(quiet_heartbeat):
    def private_event() -> tuple[Tournament, list]:
        creator, player, stranger = (established(name) for name in ("creator", "player", "stranger"))
        event = tournament(is_private=True, created_by=creator)
        entered(event, player)
        return event, [creator, player, stranger]

    event, (creator, player, stranger) = await sync_to_async(private_event)()
    for person in (stranger, None):
        socket = await communicator(f"/ws/tournaments/{event.pk}/?lang=en", person)
        assert await socket.connect() == (False, FORBIDDEN)
    missing = await communicator(f"/ws/tournaments/{event.pk + 1000}/?lang=en", creator)
    assert await missing.connect() == (False, FORBIDDEN)
    for person in (creator, player):
        page = await open_socket(f"/ws/tournaments/{event.pk}/?lang=en", person)
        assert player.username in (await frame(page, "live"))["html"]
        await page.disconnect()


async def test_a_frame_sent_is_answered_with_an_error_and_nothing_else(quiet_heartbeat):
    event, (ana,) = await sync_to_async(running_arena_of)("ana")
    page = await open_socket(f"/ws/tournaments/{event.pk}/?lang=en", ana)
    await frame(page, "live")
    await page.send_to(text_data=json.dumps({"kind": "go", "url": "https://evil.example/"}))
    assert "only sends updates" in await page.receive_from(timeout=5)
    assert await page.receive_nothing(timeout=0.5)
    await page.disconnect()


async def test_a_tournament_table_shows_its_banner_and_an_ordinary_table_does_not(quiet_heartbeat):
    event, (ana, _ion) = await sync_to_async(running_arena_of)("ana", "ion")
    sent = await sync_to_async(services.arena_pair)(tournament_id=event.pk)
    watcher = await sync_to_async(make_user)("watcher")
    url = await sync_to_async(services.tournament_url)(event)
    for person in (ana, watcher):
        page = await open_socket(f"/ws/tables/{sent[ana.pk]}/?lang=en", person)
        first = await page.receive_from(timeout=5)
        assert 'id="table-extra"' in first
        assert f'Tournament match: <a href="{url}">{event.name}</a>' in first
        assert "data-go-to" not in first
        await page.disconnect()

    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    ordinary = await open_socket(f"/ws/tables/{match.table_id}/?lang=en", users[0])
    assert "table-extra" not in await ordinary.receive_from(timeout=5)
    await ordinary.disconnect()
    # The table's page has the slot the banner lands in, empty until the socket fills it.
    page = await sync_to_async(page_text)(f"/tables/{match.table_id}/", users[0])
    assert '<div id="table-extra" class="table-extra" data-testid="table-extra"></div>' in page


def page_text(path: str, user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(path).content.decode()


async def test_a_scored_match_takes_its_players_back_to_the_tournament_and_not_its_watchers(quiet_heartbeat):
    event, (ana, ion) = await sync_to_async(running_arena_of)("ana", "ion")
    sent = await sync_to_async(services.arena_pair)(tournament_id=event.pk)
    table_id = sent[ana.pk]
    url = await sync_to_async(services.tournament_url)(event)
    watcher = await sync_to_async(make_user)("watcher")
    player = await open_socket(f"/ws/tables/{table_id}/?lang=en", ana)
    spectator = await open_socket(f"/ws/tables/{table_id}/?lang=en", watcher)
    for page in (player, spectator):
        await page.receive_from(timeout=5)
    await sync_to_async(play_out)(table_id)  # gameplay says it was decided: the table scores
    back = await html_frame(player, "data-go-to", timeout=30)
    assert f'data-go-to="{url}"' in back and 'data-go-after="5"' in back
    assert "Back to the tournament in" in back and "data-go-stay" in back
    with pytest.raises(TimeoutError):
        await html_frame(spectator, "data-go-to", timeout=1)
    # A page of the player's opened after the news shows the way back too.
    late = await open_socket(f"/ws/tables/{table_id}/?lang=en", ion)
    assert f'data-go-to="{url}"' in await late.receive_from(timeout=5)
    for page in (player, spectator, late):
        await page.disconnect()
