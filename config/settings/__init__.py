"""Settings, read from the environment (``DJANGO_SETTINGS_MODULE=config.settings``).

Nothing set: the embedded default (SQLite file, in-memory channel layer, in-memory
Celery broker served by a worker thread in the web process). ``DATABASE_URL`` and
``REDIS_URL`` switch to PostgreSQL, channels-redis, a Redis cache and a Redis
Celery broker with separate worker processes.

``base``: what the site is made of; ``limits``: every budget and cap, each said once; ``production``:
what turning DEBUG off changes.
"""

from config.settings.base import *  # noqa: F403
from config.settings.limits import *  # noqa: F403
from config.settings.production import *  # noqa: F403
