"""Kombu's Redis transport, with one Redis client per channel for its commands.

Kombu's Redis channel makes a new ``redis.Redis`` for every command it sends outside its event loop
(``conn_or_acquire``), and each new client builds its table of reply parsers again: two of them for
every task queued (a turn clock's, a bot's turn: one on every move at most tables). A client is safe
to share across threads (each command takes a connection from the channel's pool), so one client
serves every command, made again only when the channel replaces its pool (after a fork).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from kombu.transport import redis


class Channel(redis.Channel):
    _kept_client = None

    @contextmanager
    def conn_or_acquire(self, client=None) -> Iterator:
        if client is None:
            client = self._kept_client
            if client is None or client.connection_pool is not self.pool:
                client = self._kept_client = self._create_client()
        yield client


class Transport(redis.Transport):
    Channel = Channel
