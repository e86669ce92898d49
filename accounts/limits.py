"""Budgets for the site's doors: token buckets that refill at a steady rate up to a burst.

``spend_all`` takes from several buckets at once, all or nothing (a person's, their address's, the
recipient's), ``spend`` from one; both count for a key across every process: in Redis one Lua script
reads, refills and takes in a single step, so two server processes can never both spend the last
token; any other cache (the embedded mode's single process) keeps the same record behind a lock.
``spend_frame`` is a websocket frame's spend, awaited on the event loop: one round trip. They live in
accounts, the lowest app, so every app may spend (registration too).
"""

import asyncio
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import redis.asyncio
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from redis.commands.core import AsyncScript


@dataclass(frozen=True)
class Budget:
    """One bucket: ``rate`` tokens a second, at most ``burst`` held, full to begin with; ``refusal``
    is what its caller says when this one runs out."""

    key: str
    rate: float
    burst: float
    refusal: str = ""

    @classmethod
    def per(cls, key: str, count: float, seconds: float, refusal: str = "") -> "Budget":
        """``count`` spends per ``seconds``, all of them available at once (e.g. 30 an hour)."""
        return cls(key, count / seconds, count, refusal)


@dataclass(frozen=True)
class Shortfall:
    """The budget that ran out (of those asked, the one to wait longest for) and the seconds until
    it holds the cost."""

    budget: Budget
    wait: float

    @property
    def said(self) -> str:
        """The budget's refusal, its ``%(seconds)d`` (where it has one) the wait in whole seconds."""
        return self.budget.refusal % {"seconds": max(1, round(self.wait))}


_SPEND = """
local now, cost, owe = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1'
local held, short, longest = {}, 0, 0
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  local kept = redis.call('HMGET', key, 't', 's')
  local tokens, stamp = tonumber(kept[1]), tonumber(kept[2])
  if tokens == nil then tokens, stamp = burst, now end
  tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
  held[i] = tokens
  if tokens < cost and not owe and (cost - tokens) / rate > longest then
    short, longest = i, (cost - tokens) / rate
  end
end
if short > 0 then return {short, tostring(longest)} end
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  local tokens = held[i] - cost
  redis.call('HSET', key, 't', tostring(tokens), 's', tostring(now))
  -- left alone until it is full again, the bucket is forgotten
  redis.call('EXPIRE', key, math.ceil((burst - tokens) / rate) + 1)
end
return {0, '0'}
"""

_local_lock = threading.Lock()


def spend_person_and_address(
    key: str,
    user_id: int,
    address: str | None,
    *,
    count: float,
    address_count: float,
    seconds: float,
    refusal: str,
    address_refusal: str,
) -> Shortfall | None:
    """``spend_all`` of the two budgets most requests spend from: the person's (``count`` per
    ``seconds``) and, from a browser (``address`` not None), their address's, each with the refusal
    its caller says when it runs out (``Shortfall.said``). Accounts cost nothing to make; an address
    does."""
    budgets = [Budget.per(f"{key}:{user_id}", count, seconds, refusal)]
    if address is not None:
        budgets.append(Budget.per(f"{key}:addr:{address}", address_count, seconds, address_refusal))
    return spend_all(*budgets)


_writers: dict[str, Any] = {}
"""The one Redis client this process writes each cache server through, by the server's address."""
_writers_lock = threading.Lock()


def cache_writer(cache: RedisCache):
    """The Redis client ``cache`` writes through (its first server), made once for the whole process.
    Django's ``get_client`` makes a new one on every call (redis-py copies its table of reply parsers
    each time, about 50 µs), and one client is safe to share between threads over its connection pool.
    Not kept on ``cache`` itself: Django's cache handler makes a backend for every asyncio task, so
    every websocket would open a pool and a connection of its own (a 64 KiB read buffer each), made
    and dropped with every page, where the process needs one pool whatever its pages."""
    server = cache._servers[0]
    with _writers_lock:
        client = _writers.get(server)
        if client is None:
            client = _writers[server] = cache._cache.get_client(write=True)
    return client


def _script_arguments(cache: RedisCache, budgets: tuple[Budget, ...], cost: float, owe: bool):
    keys = [cache.make_and_validate_key(f"limit:{budget.key}") for budget in budgets]
    arguments = [time.time(), cost, "1" if owe else "0"]
    for budget in budgets:
        arguments += [budget.rate, budget.burst]
    return keys, arguments


def _shortfall(budgets: tuple[Budget, ...], reply) -> Shortfall | None:
    short, wait = int(reply[0]), float(reply[1])
    return Shortfall(budgets[short - 1], wait) if short else None


def spend_all(*budgets: Budget, cost: float = 1.0, owe: bool = False) -> Shortfall | None:
    """Take ``cost`` tokens from every one of ``budgets`` (shared by every process), or from none:
    None when taken, else the one that ran out (the longest wait of them). With ``owe`` they are
    taken whatever the buckets hold: one may go below zero (a charge after the fact, for work that
    turned out to be abuse), and refills from there. ``cost=0`` asks whether any is in debt."""
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        keys, arguments = _script_arguments(cache, budgets, cost, owe)
        return _shortfall(budgets, cache_writer(cache).eval(_SPEND, len(keys), *keys, *arguments))
    now = time.time()
    with _local_lock:
        held = []
        for budget in budgets:
            tokens, stamp = cache.get(f"limit:{budget.key}", (budget.burst, now))
            held.append(min(budget.burst, tokens + max(0.0, now - stamp) * budget.rate))
        waits = [(cost - tokens) / budget.rate for budget, tokens in zip(budgets, held, strict=True)]
        longest = max(waits, default=0.0)
        if longest > 0 and not owe:
            return Shortfall(budgets[waits.index(longest)], longest)
        for budget, tokens in zip(budgets, held, strict=True):
            left = tokens - cost
            cache.set(f"limit:{budget.key}", (left, now), math.ceil((budget.burst - left) / budget.rate) + 1)
    return None


def spend(key: str, *, rate: float, burst: float, cost: float = 1.0, owe: bool = False) -> float:
    """``spend_all`` of the one bucket named ``key``: 0 when taken, else how many seconds until the
    bucket holds ``cost`` (nothing is taken then)."""
    shortfall = spend_all(Budget(key, rate, burst), cost=cost, owe=owe)
    return shortfall.wait if shortfall else 0.0


_frame_scripts: dict[asyncio.AbstractEventLoop, AsyncScript] = {}
"""The script on an asyncio Redis client, one per event loop (a client's connections belong to the
loop that opened them): the server has one loop; each test has its own, dropped once closed."""


async def spend_frame(budget: Budget) -> bool:
    """Take one token from ``budget`` on the event loop, without a thread: True when taken. With Redis
    one round trip of the same script (by its digest); the embedded mode's cache is in the process."""
    cache = caches["default"]
    if not isinstance(cache, RedisCache):
        return spend_all(budget) is None
    loop = asyncio.get_running_loop()
    script = _frame_scripts.get(loop)
    if script is None:
        for closed in [other for other in _frame_scripts if other.is_closed()]:
            del _frame_scripts[closed]
        client = redis.asyncio.Redis.from_url(cache._servers[0])
        script = _frame_scripts[loop] = client.register_script(_SPEND)
    keys, arguments = _script_arguments(cache, (budget,), 1.0, False)
    return _shortfall((budget,), await script(keys, arguments)) is None


def forget(key: str) -> None:
    """Drop the bucket named ``key`` (whatever it held, it is full again)."""
    caches["default"].delete(f"limit:{key}")
