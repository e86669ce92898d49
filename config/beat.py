"""Celery beat that runs once however many workers run it.

Every worker host starts its worker with ``-B``, so losing a host never loses beat. Only the beat
holding a lock in Redis sends the periodic tasks (the sweep, the pool's pairing, the ratings' catch-up,
retention); the others keep asking, and one of them takes over once the holder is gone. Each beat
renews the lock three times per ``BEAT_LOCK_SECONDS``, so a live holder never loses it to a slow tick.

How soon "gone" is known depends on where the holder ran. The lock's value names its holder: its
host (the host's name and its kernel's boot id), its process id and a token of its own. A beat that
finds the lock held by a process of its own host that no longer exists (a worker killed with ``-9``,
its replacement started by the supervisor), or held under its own process id with another token (its
own previous life, a container started again with the same ids), takes it at once: the process is
certainly dead, so no second beat can be sending. Across hosts nothing can be known of a process, so
the lease stands: another host's beat takes over only once the lock has expired. Taking over is a
compare-and-set in Redis (the value read is replaced only if it is still there), so two beats of one
host that both find the same dead holder never both take it.

This rests on each worker host's name being its own (Docker and Kubernetes give every container its
own unless told otherwise): two live hosts of one name on one machine, each in its own process
namespace, would each see the other's beat as gone.
"""

import contextlib
import json
import logging
import os
import socket
import uuid
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import redis
from celery.beat import PersistentScheduler
from django.conf import settings

logger = logging.getLogger(__name__)

# Renew only a lock this beat still holds, in one step (another may hold it since it expired).
RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""
# Take the lock from a holder known to be gone, only if it is still that holder's.
TAKE_OVER = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) and 1 or 0
end
return 0
"""


@cache
def this_host() -> str:
    """The host's name and its kernel's boot id: a host of the same name on another machine, or this
    one after a reboot, is another host, whose process ids mean nothing here."""
    boot = ""
    with contextlib.suppress(OSError):  # not Linux: the name alone
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    return f"{socket.gethostname()}/{boot}"


@dataclass(frozen=True)
class Holder:
    """Who holds the lock, as its value says."""

    host: str
    pid: int
    token: str

    @classmethod
    def this_process(cls) -> "Holder":
        return cls(host=this_host(), pid=os.getpid(), token=uuid.uuid4().hex)

    @classmethod
    def read(cls, value: bytes | str) -> "Holder | None":
        """The holder a lock's value names; None for a value this code did not write."""
        try:
            fields = json.loads(value)
            return cls(host=str(fields["host"]), pid=int(fields["pid"]), token=str(fields["token"]))
        except (ValueError, TypeError, KeyError):
            return None

    @property
    def value(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def is_gone(self, seen_by: "Holder") -> bool:
        """Whether ``seen_by`` knows for certain that this holder's process has ended: it ran on
        ``seen_by``'s host and no process has its id any more, or it had ``seen_by``'s own id (a
        previous life of that process). Another host's holder is never known to be gone."""
        if self.host != seen_by.host or self == seen_by:
            return False
        if self.pid == seen_by.pid:
            return True
        try:
            os.kill(self.pid, 0)  # signal 0: only asks whether the process exists
        except ProcessLookupError:
            return True
        except PermissionError:  # it exists, run by another user
            return False
        return False


class BeatLock:
    """A lease in Redis naming this beat: taken when free or when its holder is known to be gone,
    renewed while held."""

    def __init__(self, client: redis.Redis, key: str, seconds: float) -> None:
        self.client = client
        self.key = key
        self.milliseconds = int(seconds * 1000)
        self.holder = Holder.this_process()
        self.held = False

    def hold(self) -> bool:
        """Whether this beat holds the lock now (taking it if it is free or its holder is gone); False
        while Redis is away."""
        try:
            taken = bool(
                self.client.eval(RENEW, 1, self.key, self.holder.value, self.milliseconds)
                or self.client.set(self.key, self.holder.value, nx=True, px=self.milliseconds)
                or self._take_from_the_gone()
            )
        except redis.RedisError as error:
            logger.warning("Beat cannot reach Redis for its lock, and sends nothing: %s", error)
            taken = False
        if taken and not self.held:
            logger.info("Beat took the lock %s: it sends the periodic tasks.", self.key)
        elif self.held and not taken:
            logger.warning("Beat lost the lock %s: another beat sends the periodic tasks.", self.key)
        self.held = taken
        return taken

    def _take_from_the_gone(self) -> bool:
        """Take the lock from its holder if that holder is known to be gone (``Holder.is_gone``)."""
        seen = self.client.get(self.key)
        holder = Holder.read(seen) if seen is not None else None
        if holder is None or not holder.is_gone(self.holder):
            return False
        if not self.take_from(seen):
            return False
        logger.info("Beat took the lock %s from process %s of this host, gone.", self.key, holder.pid)
        return True

    def take_from(self, seen: bytes | str) -> bool:
        """Put this beat's name in the lock if it still holds ``seen`` (a compare-and-set)."""
        return bool(self.client.eval(TAKE_OVER, 1, self.key, seen, self.holder.value, self.milliseconds))

    def release(self) -> None:
        with contextlib.suppress(redis.RedisError):  # it expires on its own
            self.client.eval(RELEASE, 1, self.key, self.holder.value)
        self.held = False


def lock_key() -> str:
    """One beat per site and queue: sites (or test runs) sharing a Redis have their own."""
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:beat-lock:{settings.CELERY_TASK_DEFAULT_QUEUE}"


class LockedScheduler(PersistentScheduler):
    """``PersistentScheduler`` (the schedule file ``--schedule`` names) that sends only while it holds
    the site's beat lock."""

    def __init__(self, *args, **kwargs) -> None:
        self.lock = BeatLock(
            redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2),
            lock_key(),
            settings.BEAT_LOCK_SECONDS,
        )
        super().__init__(*args, **kwargs)

    def tick(self, *args, **kwargs) -> float:
        """Send what is due if this beat holds the lock; the wait until the next tick either way, short
        enough to renew the lock (or to take it soon after its holder is gone)."""
        renew_every = settings.BEAT_LOCK_SECONDS / 3
        if not self.lock.hold():
            return renew_every
        return min(super().tick(*args, **kwargs), renew_every)

    def close(self) -> None:
        """A beat stopped warmly hands the lock on at once, not after it expires."""
        super().close()
        if self.lock.held:
            self.lock.release()
