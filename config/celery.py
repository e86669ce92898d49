"""The Celery application.

With ``REDIS_URL`` set, tasks go through Redis to separate ``celery -A config worker``
processes. Without it (the embedded default) the broker is in memory and
``config.embedded_worker`` runs a worker thread inside the web server process.
"""

import inspect
import logging
import os
import time
from datetime import datetime
from functools import cache
from typing import Any

from celery import Celery, Task, signals

from observe import logs, metrics
from observe.logs import JsonFormatter

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("septica")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# --- Metrics and log context of the tasks (``observe``) --------------------------------------------

DUE_HEADER = "septica_due_at"
"""When a task was due to start (its publishing, or its countdown's end), as a Unix time."""


@signals.before_task_publish.connect(weak=False)
def stamp_due(headers: dict | None = None, **kwargs: Any) -> None:
    """Stamp the message with the time it is due, so its worker can tell how long it waited."""
    if headers is None:
        return
    due = time.time()
    if headers.get("eta"):
        due = max(due, datetime.fromisoformat(headers["eta"]).timestamp())
    headers[DUE_HEADER] = due


@cache
def _parameters(task: Task) -> inspect.Signature:
    return inspect.signature(task.run)


@signals.task_prerun.connect(weak=False)
def task_started(task: Task, args: tuple = (), kwargs: dict | None = None, **_: Any) -> None:
    """Note the task's wait in the queue, and the match (or table) it is about for its log lines."""
    due = getattr(task.request, DUE_HEADER, None)
    if due is not None:
        metrics.TASK_LAG_SECONDS.labels(task=task.name).observe(max(0.0, time.time() - due))
    try:
        named = _parameters(task).bind_partial(*args, **(kwargs or {})).arguments
    except TypeError:  # called with arguments the task does not take: it fails, as it should
        named = {}
    logs.bind(match_id=named.get("match_id"), table_id=named.get("table_id"))


@signals.task_postrun.connect(weak=False)
def task_finished(task: Task, state: str | None = None, **kwargs: Any) -> None:
    """Count the run by its outcome (success, failure, retry); its log context ends with it."""
    metrics.TASK_RUNS.labels(task=task.name, outcome=(state or "unknown").lower()).inc()
    logs.bind(match_id=None, table_id=None)


@signals.after_setup_logger.connect(weak=False)
@signals.after_setup_task_logger.connect(weak=False)
def json_lines(logger: logging.Logger, **kwargs: Any) -> None:
    """With ``LOG_FORMAT=json`` the worker's lines are JSON too, like the servers' (Celery sets up its
    own handlers, each with its own format)."""
    from django.conf import settings

    if settings.LOG_FORMAT == "json":
        for handler in logger.handlers:
            handler.setFormatter(JsonFormatter())


@signals.worker_process_shutdown.connect(weak=False)
def pool_process_exited(**kwargs: Any) -> None:
    """A pool process's live gauges go with it (its exit skips ``atexit``)."""
    metrics.process_exited()
