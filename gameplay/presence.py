"""Who has the table open: each seat's live websocket connections, shared by every server process.

Every connection has its own entry stamped with the last time it was heard of: on arrival, then by
the server process's heartbeat (``PRESENCE_HEARTBEAT_SECONDS``). An entry not refreshed within
``PRESENCE_TTL_SECONDS`` no longer counts, so a server that dies (``kill -9``, a lost machine)
cannot leave a seat marked present: its connections fade within the TTL, with nothing to clean up.

Where the cache is Redis (production, several processes) a seat is a sorted set, connection →
last heard of, plus the time its last connection left: adding, refreshing, removing and counting
the live entries are single Redis commands run in one MULTI/EXEC, so two processes never undo each
other's update (a counter or a dict read, changed and written back through Django's cache API
would lose one of two updates made at once). Any other cache (the embedded mode's in-process
cache) keeps the same record as one value through Django's cache API behind a lock: that mode is
a single process, so the lock is all the atomicity it needs.

When a seat's last connection goes away (it left, or it faded because its process died) the
seat counts as away from that moment: for a faded one, from the last time it was heard of.
"""

import math
import threading
import time
from typing import Protocol

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache

from accounts.limits import cache_writer

KEEP_SECONDS = 6 * 3600
"""How long a seat's record outlives its last change (a table left open, forgotten): after that
the seat reads as never seen."""


def ttl() -> float:
    return float(settings.PRESENCE_TTL_SECONDS)


class Store(Protocol):
    def stamp(self, key: str, connection: str, now: float) -> None: ...
    def stamp_many(self, entries: list[tuple[str, str]], now: float) -> None: ...
    def remove(self, key: str, connection: str, now: float) -> int: ...
    def live(self, key: str, now: float) -> int: ...
    def last_seen(self, key: str, now: float) -> tuple[int, float | None]: ...
    def members(self, key: str, now: float) -> list[str]: ...
    def live_many(self, keys: list[str], now: float) -> list[int]: ...


class RedisStore:
    """A seat as a sorted set (connection → last heard of) and a string (when the last one left)."""

    def __init__(self, backend: RedisCache) -> None:
        self.backend = backend

    def _client(self):
        # The client of Django's Redis cache's own connection pool (writes all go to its first
        # server); the keys carry the cache's prefix and version like any other cache key.
        return cache_writer(self.backend)

    def _keys(self, key: str) -> tuple[str, str]:
        full = self.backend.make_and_validate_key(key)
        return full, f"{full}:left"

    def stamp(self, key: str, connection: str, now: float) -> None:
        self.stamp_many([(key, connection)], now)

    def stamp_many(self, entries: list[tuple[str, str]], now: float) -> None:
        """Every entry stamped in one round trip (a process's heartbeat stamps all its connections)."""
        if not entries:
            return
        with self._client().pipeline(transaction=True) as pipe:
            for key, connection in entries:
                seat, _left = self._keys(key)
                pipe.zremrangebyscore(seat, "-inf", f"({now - ttl()}")
                pipe.zadd(seat, {connection: now})
                pipe.expire(seat, KEEP_SECONDS)
            pipe.execute()

    def remove(self, key: str, connection: str, now: float) -> int:
        entries, left = self._keys(key)
        with self._client().pipeline(transaction=True) as pipe:
            pipe.zrem(entries, connection)
            pipe.zremrangebyscore(entries, "-inf", f"({now - ttl()}")
            pipe.set(left, now, ex=KEEP_SECONDS)
            pipe.zcount(entries, now - ttl(), "+inf")
            return int(pipe.execute()[-1])

    def live(self, key: str, now: float) -> int:
        entries, _left = self._keys(key)
        return int(self._client().zcount(entries, now - ttl(), "+inf"))

    def last_seen(self, key: str, now: float) -> tuple[int, float | None]:
        entries, left = self._keys(key)
        with self._client().pipeline(transaction=True) as pipe:
            pipe.zcount(entries, now - ttl(), "+inf")
            pipe.zrange(entries, -1, -1, withscores=True)
            pipe.get(left)
            live, newest, left_at = pipe.execute()
        times = [score for _member, score in newest] + ([float(left_at)] if left_at is not None else [])
        return int(live), max(times) if times else None

    def live_many(self, keys: list[str], now: float) -> list[int]:
        """``live`` for each of ``keys``, in one round trip."""
        with self._client().pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.zcount(self._keys(key)[0], now - ttl(), "+inf")
            return [int(count) for count in pipe.execute()]

    def members(self, key: str, now: float) -> list[str]:
        entries, _left = self._keys(key)
        return [member.decode() for member in self._client().zrangebyscore(entries, now - ttl(), "+inf")]


class CacheStore:
    """The same record as one cache value ({"seen": {connection: time}, "left": time}), for a
    single-process cache; the lock makes each read-change-write whole."""

    lock = threading.Lock()

    def __init__(self, backend: BaseCache) -> None:
        self.backend = backend

    def _record(self, key: str) -> dict:
        return self.backend.get(key) or {"seen": {}, "left": None}

    def _live(self, record: dict, now: float) -> dict[str, float]:
        return {name: seen for name, seen in record["seen"].items() if seen >= now - ttl()}

    def stamp(self, key: str, connection: str, now: float) -> None:
        with self.lock:
            record = self._record(key)
            record["seen"] = {**self._live(record, now), connection: now}
            self.backend.set(key, record, timeout=KEEP_SECONDS)

    def stamp_many(self, entries: list[tuple[str, str]], now: float) -> None:
        for key, connection in entries:
            self.stamp(key, connection, now)

    def remove(self, key: str, connection: str, now: float) -> int:
        with self.lock:
            record = self._record(key)
            record["seen"] = self._live(record, now)
            record["seen"].pop(connection, None)
            record["left"] = now
            self.backend.set(key, record, timeout=KEEP_SECONDS)
            return len(record["seen"])

    def live(self, key: str, now: float) -> int:
        return len(self._live(self._record(key), now))

    def last_seen(self, key: str, now: float) -> tuple[int, float | None]:
        record = self._record(key)
        times = [*record["seen"].values(), *([record["left"]] if record["left"] is not None else [])]
        return len(self._live(record, now)), max(times) if times else None

    def live_many(self, keys: list[str], now: float) -> list[int]:
        return [self.live(key, now) for key in keys]

    def members(self, key: str, now: float) -> list[str]:
        return list(self._live(self._record(key), now))


def _store() -> Store:
    backend = caches["default"]
    return RedisStore(backend) if isinstance(backend, RedisCache) else CacheStore(backend)


def _key(table_id: int, seat: int | str) -> str:
    # Not "presence:…": that name held the old counters (strings), which may outlive an upgrade.
    return f"seat-connections:{table_id}:{seat}"


class OpenHere:
    """The connections open in this process, by seat. A seat with one here is present for sure, so
    the check a move makes on the next seat's player (``present``) asks the shared store only when
    that player's connections, if any, are on another process."""

    def __init__(self) -> None:
        self.seats: dict[str, set[str]] = {}
        self.lock = threading.Lock()

    def add(self, key: str, connection: str) -> None:
        with self.lock:
            self.seats.setdefault(key, set()).add(connection)

    def discard(self, key: str, connection: str) -> None:
        with self.lock:
            connections = self.seats.get(key)
            if connections is not None:
                connections.discard(connection)
                if not connections:
                    del self.seats[key]

    def __contains__(self, key: str) -> bool:
        return key in self.seats


OPEN_HERE = OpenHere()


def arrive(table_id: int, seat: int, connection: str) -> None:
    """A connection for this seat opened (``connection`` names it uniquely, e.g. its channel)."""
    key = _key(table_id, seat)
    _store().stamp(key, connection, time.time())
    OPEN_HERE.add(key, connection)


def refresh_many(connections: list[tuple[int, int, str]]) -> None:
    """A server process's heartbeat: each (table, seat, connection) is still open. Puts back any that
    had faded meanwhile."""
    _store().stamp_many(
        [(_key(table_id, seat), connection) for table_id, seat, connection in connections], time.time()
    )


def leave(table_id: int, seat: int, connection: str) -> int:
    """The connection closed; returns how many live connections the seat has left."""
    key = _key(table_id, seat)
    OPEN_HERE.discard(key, connection)
    return _store().remove(key, connection, time.time())


def connections(table_id: int, seat: int) -> int:
    """How many live connections the seat has (heard of within the TTL)."""
    return _store().live(_key(table_id, seat), time.time())


def present(table_id: int, seat: int) -> bool:
    """Whether the seat has a live connection, here or on another process."""
    key = _key(table_id, seat)
    return key in OPEN_HERE or _store().live(key, time.time()) > 0


WATCHERS = "watchers"
"""The pseudo-seat a table's spectators' connections count in (``connections(table, WATCHERS)``)."""


def watchers(table_ids: list[int]) -> dict[int, int]:
    """How many connections watch each table (a spectator's, not a seat's)."""
    counts = _store().live_many([_key(table_id, WATCHERS) for table_id in table_ids], time.time())
    return dict(zip(table_ids, counts, strict=True))


SITE_KEY = "site-connections"
"""Every open page's site-wide socket (``social.consumers``), one entry per tab: "<person>:<channel>",
the person's id or "-" for a visitor not logged in."""


def site_arrive(person: int | None, connection: str) -> None:
    _store().stamp_many(_site_entries(person, connection), time.time())


def site_refresh(connections: list[tuple[int | None, str]]) -> None:
    """A server process's heartbeat for its site-wide sockets (see ``refresh_many``)."""
    _store().stamp_many(
        [entry for person, channel in connections for entry in _site_entries(person, channel)], time.time()
    )


def site_leave(person: int | None, connection: str) -> None:
    now = time.time()
    for key, member in _site_entries(person, connection):
        _store().remove(key, member, now)


def site_online(person: int) -> bool:
    """Whether ``person`` has a page of the site open now (one count, however many are online)."""
    return _store().live(_person_key(person), time.time()) > 0


def _person_key(person: int) -> str:
    return f"site-person:{person}"


def _site_entries(person: int | None, connection: str) -> list[tuple[str, str]]:
    """Where a site-wide socket counts: among everyone's, and among its person's own."""
    entries = [(SITE_KEY, _site_member(person, connection))]
    if person is not None:
        entries.append((_person_key(person), connection))
    return entries


def site_people() -> tuple[set[int], int]:
    """The people with a page of the site open (heard of within the TTL), and how many visitors not
    logged in have one (a tab each)."""
    people: set[int] = set()
    visitors = 0
    for member in _store().members(SITE_KEY, time.time()):
        person = member.partition(":")[0]
        if person == "-":
            visitors += 1
        else:
            people.add(int(person))
    return people, visitors


def _site_member(person: int | None, connection: str) -> str:
    return f"{person if person is not None else '-'}:{connection}"


def away_seconds(table_id: int, seat: int) -> float | None:
    """None while the seat has a live connection; otherwise the seconds since its last connection
    went away (it left, or it was last heard of before its process died); ``math.inf`` if the
    seat was never seen (or not for hours)."""
    now = time.time()
    live, last = _store().last_seen(_key(table_id, seat), now)
    if live:
        return None
    if last is None:
        return math.inf
    return max(0.0, now - last)
