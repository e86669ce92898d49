"""The site-wide socket over real websockets and the Redis channel layer: a notice reaches every page
of its person (and nobody else's) in their language, the pool's waiting page opens the table made,
the counts of who is online, and a frame sent is never acted on."""

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import cache

from accounts.services import user_ban
from gameplay import presence
from social import selectors, services
from social.models import PoolEntry
from tests.channels import open_socket
from tests.factories import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def frame(socket, kind: str, timeout: float = 5) -> dict:
    """The next frame of ``kind`` the socket sends within ``timeout`` (counts may come in between, and
    do not stretch the wait)."""
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await socket.receive_from(timeout=timeout))
            if message.get("kind") == kind:
                return message


async def test_a_friend_request_reaches_every_open_page_of_its_person_in_their_language():
    ana, ion = await sync_to_async(make_user)("ana"), await sync_to_async(make_user)("ion")
    english = await open_socket("/ws/me/?lang=en", ion)
    romanian = await open_socket("/ws/me/?lang=ro", ion)
    bystander = await open_socket("/ws/me/?lang=en", ana)
    await sync_to_async(services.friend_request_send)(sender=ana, recipient=ion)
    in_english = await frame(english, "notice")
    in_romanian = await frame(romanian, "notice")
    assert "ana would like to be your friend." in in_english["html"]
    assert in_english["unread"] == 1 and in_romanian["unread"] == 1
    assert "ana" in in_romanian["html"] and "would like to be your friend" not in in_romanian["html"]
    assert await bystander.receive_nothing(timeout=1)
    for socket in (english, romanian, bystander):
        await socket.disconnect()


async def test_the_waiting_page_opens_the_table_the_pool_made(settings):
    # No heartbeat stamps the pool during the test: a pairing skips the rows a stamp holds (the next
    # second's pool tick, not run here, pairs them), so a stamp during Ion's join would leave Ana out.
    settings.POOL_SEEN_EVERY_SECONDS = settings.PRESENCE_HEARTBEAT_SECONDS = 600
    ana, ion = await sync_to_async(make_user)("ana"), await sync_to_async(make_user)("ion")
    join = sync_to_async(services.pool_join)
    await join(user=ana, game="americana", players=2, length=101, fill_with_bots=False)
    waiting = await open_socket("/ws/me/?lang=en&pool=1", ana)
    await frame(waiting, "counts")  # the page is in: its own stamp, as it connected, is done
    elsewhere = await open_socket("/ws/me/?lang=en", ana)  # a page that does not look: stays put
    entry = await join(user=ion, game="americana", players=2, length=101, fill_with_bots=False)
    paired = await frame(waiting, "paired")
    assert paired["url"] == f"/tables/{entry.table_id}/"
    assert await elsewhere.receive_nothing(timeout=1)
    # A page that missed the news (opened after the pairing) is told as it connects.
    late = await open_socket("/ws/me/?lang=en&pool=1", ion)
    assert (await frame(late, "paired"))["url"] == paired["url"]
    for socket in (waiting, elsewhere, late):
        await socket.disconnect()


async def test_a_page_that_looks_keeps_its_person_in_the_pool(settings):
    settings.POOL_SEEN_EVERY_SECONDS = 0.3
    ana = await sync_to_async(make_user)("ana")
    await sync_to_async(services.pool_join)(
        user=ana, game="classic", players=2, length="points8", fill_with_bots=False
    )
    before = (await sync_to_async(PoolEntry.objects.get)(user=ana)).seen_at
    waiting = await open_socket("/ws/me/?lang=en&pool=1", ana)
    counts = await frame(waiting, "counts")
    assert counts["pools"].get("classic:2:points8:rated") == 1
    await frame(waiting, "counts", timeout=5)  # the heartbeat's
    assert (await sync_to_async(PoolEntry.objects.get)(user=ana)).seen_at > before
    await waiting.disconnect()


async def test_pages_count_who_is_online_and_leave_the_count_when_closed():
    ana = await sync_to_async(make_user)("ana")
    page = await open_socket("/ws/me/?lang=en&counts=1", ana)
    visitor = await open_socket("/ws/me/?lang=en")
    for _ in range(50):  # each page is stamped just after its socket is accepted
        people, visitors = await sync_to_async(presence.site_people)()
        if ana.pk in people and visitors:
            break
        await asyncio.sleep(0.05)
    assert ana.pk in people and visitors >= 1
    await sync_to_async(cache.delete)(selectors.COUNTS_KEY)
    assert (await sync_to_async(selectors.site_counts)()).online >= 2
    await page.disconnect()
    await visitor.disconnect()
    people, _visitors = await sync_to_async(presence.site_people)()
    assert ana.pk not in people


async def test_a_frame_sent_on_the_site_socket_is_answered_with_an_error_and_nothing_else():
    ana = await sync_to_async(make_user)("ana")
    page = await open_socket("/ws/me/?lang=en", ana)
    await page.send_to(text_data=json.dumps({"kind": "paired", "url": "https://evil.example/"}))
    assert "only sends updates" in await page.receive_from(timeout=5)
    await page.disconnect()


async def test_a_ban_closes_the_person_s_site_sockets_for_good_and_says_why():
    ana = await sync_to_async(make_user)("ana")
    moderator = await sync_to_async(make_user)("moderator", is_staff=True, is_superuser=True)
    page = await open_socket("/ws/me/?lang=en", ana)
    await sync_to_async(user_ban)(user=ana, by=moderator)
    closed = await frame(page, "closed")
    assert "Your account has been deactivated" in closed["content"]
    assert (await page.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4403}
