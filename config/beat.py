"""Celery beat that runs once however many workers run it.

Every worker host starts its worker with ``-B``, so losing a host never loses beat. Only the beat
holding a lock in Redis sends the periodic tasks (the sweep, the pool's pairing, the ratings' catch-up,
retention); the others keep asking, and one of them takes over within ``BEAT_LOCK_SECONDS`` of the
holder going quiet. Each beat renews the lock at least three times in that span, so a live holder
never loses it to a slow tick.
"""

import contextlib
import logging
import uuid

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


class BeatLock:
    """A lease in Redis with this beat's own token: taken when free, renewed while held."""

    def __init__(self, client: redis.Redis, key: str, seconds: float) -> None:
        self.client = client
        self.key = key
        self.milliseconds = int(seconds * 1000)
        self.token = uuid.uuid4().hex
        self.held = False

    def hold(self) -> bool:
        """Whether this beat holds the lock now (taking it if it is free); False while Redis is away."""
        try:
            if self.held and self.client.eval(RENEW, 1, self.key, self.token, self.milliseconds):
                return True
            taken = bool(self.client.set(self.key, self.token, nx=True, px=self.milliseconds))
        except redis.RedisError as error:
            logger.warning("Beat cannot reach Redis for its lock, and sends nothing: %s", error)
            taken = False
        if taken and not self.held:
            logger.info("Beat took the lock %s: it sends the periodic tasks.", self.key)
        elif self.held and not taken:
            logger.warning("Beat lost the lock %s: another beat sends the periodic tasks.", self.key)
        self.held = taken
        return taken

    def release(self) -> None:
        with contextlib.suppress(redis.RedisError):  # it expires on its own
            self.client.eval(RELEASE, 1, self.key, self.token)
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
