"""Closing an account while others have the table open: the pages still open lose the person's chat
lines at once, and the person's own pages close. Sockets on PostgreSQL and Redis."""

import pytest
from asgiref.sync import sync_to_async

from chat.models import ChatMessage
from privacy import services
from tests.chat.test_consumers import close_all, line_said, say, seated_and_watched, until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_the_lines_of_a_closed_account_leave_the_pages_still_open(settings):
    settings.CHAT_FREE_TEXT_MATCHES = 0
    _match, _users, watcher, seats, spectator = await seated_and_watched()
    await say(spectator, text="a line from the rail")
    for socket in (*seats, spectator):
        await line_said(socket, "a line from the rail")
    message = await sync_to_async(ChatMessage.objects.get)(text="a line from the rail")

    assert await sync_to_async(services.account_erase)(user=watcher) is True
    for socket in seats:
        removed = await until(socket, lambda frame: f'id="chat-line-{message.pk}"' in frame)
        assert "Deleted with its author's account." in removed and "a line from the rail" not in removed
    said = [await spectator.receive_output(timeout=5) for _ in range(2)]
    assert "deactivated" in said[0]["text"] and said[1] == {"type": "websocket.close", "code": 4403}
    assert not await sync_to_async(ChatMessage.objects.filter(author=watcher).exists)()
    await close_all(*seats)
