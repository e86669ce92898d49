"""What the practice tests share."""

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from practice.uploads import PRACTICE_BUDGET


def forget_upload_budgets() -> None:
    """Every person's budget of practice uploads, gone: one left in the test Redis by an earlier run
    (whose people had the same ids, the test database being new each run) would throttle this one."""
    cache = caches["default"]
    if not isinstance(cache, RedisCache):
        cache.clear()
        return
    client = cache._cache.get_client(write=True)
    pattern = cache.make_key(f"limit:{PRACTICE_BUDGET.format(user_id='*')}")
    for key in client.scan_iter(match=pattern):
        client.delete(key)
