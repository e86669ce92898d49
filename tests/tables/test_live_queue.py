"""A live page reads its socket's messages and its process's news from one queue: in the order they
come, news heard while a frame is handled before the next frame, its socket's end stops it, and an
error in receiving is raised where the page reads."""

import asyncio

import pytest
from channels.exceptions import StopConsumer
from django.core.cache import caches

from accounts.limits import cache_writer
from tables.consumers import LiveConsumer


class RecordingPage(LiveConsumer):
    """A page that notes what it is handed, and nothing more."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    async def websocket_connect(self, message: dict) -> None:
        self.seen.append("connect")

    async def websocket_receive(self, message: dict) -> None:
        self.seen.append(message["text"])

    async def websocket_disconnect(self, message: dict) -> None:
        raise StopConsumer  # without channels' closing of stale database connections

    async def page_news(self, message: dict) -> None:
        self.seen.append(message["said"])


def socket(page: RecordingPage, then: BaseException | None):
    """A socket's ``receive``: it opens, sends "first", the process hands the page news, the socket
    sends "second", then ends with ``then`` raised (or closes when None). Each waits for the page to
    have read what came before it, so the order they arrive in is known."""
    calls = 0

    async def read(word: str) -> None:
        while word not in page.seen:
            await asyncio.sleep(0.001)

    async def receive() -> dict:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"type": "websocket.connect"}
        if calls == 2:
            return {"type": "websocket.receive", "text": "first"}
        await read("first")
        if calls == 3:
            page.news.put_nowait({"type": "page.news", "said": "news"})
            await read("news")
            return {"type": "websocket.receive", "text": "second"}
        if calls > 4:  # nothing after the socket's end
            await asyncio.Event().wait()
        await read("second")
        if then is not None:
            raise then
        return {"type": "websocket.disconnect", "code": 1000}

    return receive


async def nothing_sent(message: dict) -> None:
    raise AssertionError("the page sends nothing")


def test_the_pages_messages_and_news_come_in_order_and_its_socket_closing_stops_it():
    page = RecordingPage()

    async def served() -> set[asyncio.Task]:
        await page.serve({"path": "/ws/test/"}, socket(page, None), nothing_sent)
        return {task for task in asyncio.all_tasks() if task is not asyncio.current_task()}

    left_running = asyncio.run(served())
    assert page.seen == ["connect", "first", "news", "second"]
    assert left_running == set()  # its socket's reader stopped with it


def test_news_heard_while_a_frame_is_handled_comes_before_the_frames_already_sent():
    """A page that floods its socket still hears, between its frames, what its frames caused (its
    own chat line's broadcast): the socket's next frame is read only once the last one is handled."""

    class SayingPage(RecordingPage):
        async def websocket_receive(self, message: dict) -> None:
            await super().websocket_receive(message)
            self.news.put_nowait({"type": "page.news", "said": f"heard {message['text']}"})

    page = SayingPage()
    sent = iter(
        [{"type": "websocket.connect"}]
        + [{"type": "websocket.receive", "text": word} for word in ("first", "second", "third")]
        + [{"type": "websocket.disconnect", "code": 1000}]
    )

    async def receive() -> dict:  # every frame already waiting, as in a flood
        return next(sent)

    asyncio.run(page.serve({"path": "/ws/test/"}, receive, nothing_sent))
    assert page.seen == ["connect", "first", "heard first", "second", "heard second", "third", "heard third"]


def test_an_error_receiving_is_raised_where_the_page_reads_its_messages():
    page = RecordingPage()
    with pytest.raises(ConnectionResetError, match="gone"):
        asyncio.run(
            page.serve({"path": "/ws/test/"}, socket(page, ConnectionResetError("gone")), nothing_sent)
        )
    assert page.seen == ["connect", "first", "news", "second"]


@pytest.mark.django_db
def test_the_caches_redis_client_is_made_once_and_writes():
    cache = caches["default"]
    if not hasattr(cache, "_cache") or not hasattr(cache._cache, "get_client"):
        pytest.skip("the embedded cache has no Redis client")
    client = cache_writer(cache)
    assert cache_writer(cache) is client
    key = cache.make_and_validate_key("kept-writer-test")
    client.set(key, "1", ex=5)
    assert client.get(key) == b"1"
