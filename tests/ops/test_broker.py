"""Tasks queued through the site's Redis transport (``config.broker``): one client for every command
of a channel, a new one when the channel's pool is replaced, and each task in the queue as sent."""

import json

from django.db import transaction

from config.broker import Channel, Transport
from config.celery import app
from gameplay import scheduling
from tests.conftest import queued, queued_args


def test_the_site_sends_its_tasks_through_one_kept_client_per_channel(broker):
    with app.connection_for_write() as connection:
        assert isinstance(connection.transport, Transport)
        channel = connection.default_channel
        assert isinstance(channel, Channel)
        with channel.conn_or_acquire() as first, channel.conn_or_acquire() as second:
            assert first is second
            assert first.connection_pool is channel.pool
        producer = app.amqp.Producer(channel)
        for seat in range(3):
            app.send_task(scheduling.TAKE_OVER_IF_QUIET, args=[7, seat, 9, "clock"], producer=producer)
        with channel.conn_or_acquire() as later:
            assert later is first
    messages = queued(broker)
    assert [message["headers"]["argsrepr"] for message in messages] == [
        f"[7, {seat}, 9, 'clock']" for seat in range(3)
    ]


def test_a_channel_whose_pool_was_replaced_makes_a_client_on_the_new_one(broker):
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        with channel.conn_or_acquire() as before:
            assert before.ping()
        channel._disconnect_pools()  # as after a fork
        with channel.conn_or_acquire() as after:
            assert after is not before
            assert after.connection_pool is channel.pool
            assert after.lpush(app.conf.task_default_queue, json.dumps({"headers": {"argsrepr": "[]"}}))
    assert queued(broker) == [{"headers": {"argsrepr": "[]"}}]


def test_a_task_queued_on_commit_goes_out_once_with_its_arguments_said_plainly(broker, transactional_db):
    with transaction.atomic():
        scheduling.queue_on_commit(scheduling.PLAY_TURN, [12, 34], countdown=30)
        assert queued(broker) == []  # nothing before the commit
    (message,) = queued(broker)
    assert message["headers"]["task"] == scheduling.PLAY_TURN
    assert message["headers"]["argsrepr"] == "[12, 34]"
    assert message["headers"]["kwargsrepr"] == "{}"
    assert message["headers"]["eta"] is not None
    assert queued_args(message) == [12, 34]
