"""Budgets for the site's doors: token buckets that refill at a steady rate up to a burst.

``TokenBucket`` lives in one process and counts for one thing there (a websocket connection's
frames). ``spend`` counts for one key across every process (a person's practice uploads, an address's
registrations): in Redis one Lua script reads, refills and takes in a single step, so two server
processes can never both spend the last token; any other cache (the embedded mode's single process)
keeps the same record behind a lock. They live in accounts, the lowest app, so every app may spend.
"""

import math
import threading
import time
from dataclasses import dataclass, field

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache


@dataclass
class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` held; full to begin with."""

    rate: float
    burst: float
    tokens: float = field(init=False)
    stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst
        self.stamp = time.monotonic()

    def take(self, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if the bucket holds them; False (and nothing spent) if not."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True


_SPEND = """
local tokens = tonumber(redis.call('HGET', KEYS[1], 't'))
local stamp = tonumber(redis.call('HGET', KEYS[1], 's'))
local now, rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local owe = ARGV[5] == '1'
if tokens == nil then tokens, stamp = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local wait = 0
if tokens >= cost or owe then tokens = tokens - cost else wait = (cost - tokens) / rate end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 's', tostring(now))
-- left alone until it is full again, the bucket is forgotten
redis.call('EXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1)
return tostring(wait)
"""

_local_lock = threading.Lock()


def cache_writer(cache: RedisCache):
    """The Redis client ``cache`` writes through, made once for it: Django's ``get_client`` makes a new
    one on every call (redis-py copies its table of reply parsers each time, about 50 µs), and one
    client is safe to share between threads over the cache's connection pool."""
    client = cache.__dict__.get("kept_writer")
    if client is None:
        client = cache.__dict__["kept_writer"] = cache._cache.get_client(write=True)
    return client


def spend(key: str, *, rate: float, burst: float, cost: float = 1.0, owe: bool = False) -> float:
    """Take ``cost`` tokens from the bucket named ``key`` (shared by every process): 0 when taken,
    else how many seconds until the bucket holds them (nothing is taken then). With ``owe`` they are
    taken whatever the bucket holds: it may go below zero (a charge after the fact, for work that
    turned out to be abuse), and refills from there. ``cost=0`` asks whether the bucket is in debt."""
    cache = caches["default"]
    full_key = f"limit:{key}"
    now = time.time()
    if isinstance(cache, RedisCache):
        client = cache_writer(cache)
        redis_key = cache.make_and_validate_key(full_key)
        wait = client.eval(_SPEND, 1, redis_key, now, rate, burst, cost, "1" if owe else "0")
        return float(wait)
    with _local_lock:
        tokens, stamp = cache.get(full_key, (burst, now))
        tokens = min(burst, tokens + max(0.0, now - stamp) * rate)
        wait = 0.0 if tokens >= cost or owe else (cost - tokens) / rate
        if not wait:
            tokens -= cost
        cache.set(full_key, (tokens, now), math.ceil((burst - tokens) / rate) + 1)  # until full again
    return wait


def forget(key: str) -> None:
    """Drop the bucket named ``key`` (whatever it held, it is full again)."""
    caches["default"].delete(f"limit:{key}")
