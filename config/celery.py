"""The Celery application.

With ``REDIS_URL`` set, tasks go through Redis to separate ``celery -A config worker``
processes. Without it (the embedded default) the broker is in memory and
``config.embedded_worker`` runs a worker thread inside the web server process.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("septica")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
