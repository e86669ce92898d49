"""A group message sent from sync code (a move's news, from the thread that made it) is one PUBLISH
that the channel layer's own subscribers receive as the layer would have sent it."""

import asyncio

import pytest
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer

from tables import events

pytestmark = pytest.mark.asyncio


async def test_a_group_message_published_from_a_thread_reaches_the_layers_subscribers():
    layer = get_channel_layer()
    assert isinstance(layer, RedisPubSubChannelLayer)
    channel = await layer.new_channel()
    group = "table.test-publish"
    await layer.group_add(group, channel)
    try:
        message = {"type": "table.changed", "table": 7, "version": 12, "match_only": True}
        await asyncio.to_thread(events.group_send, group, message)
        assert await asyncio.wait_for(layer.receive(channel), timeout=5) == message
        await asyncio.to_thread(events.group_send, "table.someone-else", {"type": "table.changed"})
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.receive(channel), timeout=0.3)
    finally:
        await layer.group_discard(group, channel)
