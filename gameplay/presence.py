"""Who has the table open: a count of live websocket connections per seat, in the shared cache.

The count lives in the cache (Redis in production) so every server process sees the same
number; it expires on its own so a crashed server cannot leave a seat "connected" for good.
"""

import math
import time

from django.core.cache import cache

PRESENCE_TTL = 6 * 3600


def _key(table_id: int, seat: int) -> str:
    return f"presence:{table_id}:{seat}"


def arrive(table_id: int, seat: int) -> int:
    key = _key(table_id, seat)
    cache.add(key, 0, timeout=PRESENCE_TTL)
    try:
        return cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=PRESENCE_TTL)
        return 1


def leave(table_id: int, seat: int) -> int:
    """One connection fewer; returns how many remain."""
    key = _key(table_id, seat)
    try:
        left = cache.decr(key)
    except ValueError:
        return 0
    if left <= 0:
        cache.delete(key)
        cache.set(_gone_key(table_id, seat), time.time(), timeout=PRESENCE_TTL)
        return 0
    return left


def connections(table_id: int, seat: int) -> int:
    return cache.get(_key(table_id, seat), 0)


def _gone_key(table_id: int, seat: int) -> str:
    return f"presence-gone:{table_id}:{seat}"


def away_seconds(table_id: int, seat: int) -> float | None:
    """None while the seat has a connection open; else seconds since its last one closed (inf: never seen)."""
    if connections(table_id, seat):
        return None
    gone_at = cache.get(_gone_key(table_id, seat))
    return math.inf if gone_at is None else time.time() - gone_at
