"""Counting a process's open websockets, for a Channels consumer, without importing Channels."""

from typing import Any

from .metrics import OPEN_SOCKETS


class CountedSocket:
    """Mixed in before the consumer's base: a socket counts in ``septica_websockets_open`` from its
    ``accept`` until its consumer's run ends, however it ends."""

    counted = False

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.counted:
                self.counted = False
                OPEN_SOCKETS.labels(consumer=type(self).__name__).dec()

    async def accept(self, *args: Any, **kwargs: Any) -> None:
        await super().accept(*args, **kwargs)
        if not self.counted:
            self.counted = True
            OPEN_SOCKETS.labels(consumer=type(self).__name__).inc()
