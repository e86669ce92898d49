"""The site's metrics, one object each, noted wherever the work happens.

With ``PROMETHEUS_MULTIPROC_DIR`` set (before ``prometheus_client`` is first imported), every process
of a host (each Daphne, the Celery worker) writes its values to files there and any process's
``exposition`` reports them all; without it, each process reports its own.
"""

import atexit
import os
from collections.abc import Iterable

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")

FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""For work that takes milliseconds: a move reaching the channel layer, a bot's choice."""
LAG_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
"""For a task's wait in the queue, from milliseconds to a backlog of minutes."""

REQUESTS = Counter(
    "septica_http_requests",
    "HTTP requests answered, by view (URL name or route) and status.",
    ["view", "status"],
)
REQUEST_SECONDS = Histogram(
    "septica_http_request_duration_seconds", "Time to answer an HTTP request, by view.", ["view"]
)
OPEN_SOCKETS = Gauge(
    "septica_websockets_open",
    "Websockets open in this process, by consumer.",
    ["consumer"],
    multiprocess_mode="liveall",
)
MOVES = Counter("septica_moves", "Moves committed and broadcast, by game.", ["game"])
MOVE_BROADCAST_SECONDS = Histogram(
    "septica_move_broadcast_seconds",
    "From a move's start to its news handed to the channel layer after commit.",
    buckets=FAST_BUCKETS,
)
TASK_LAG_SECONDS = Histogram(
    "septica_task_lag_seconds",
    "From a task's publishing (or its countdown's end) to a worker starting it, by task.",
    ["task"],
    buckets=LAG_BUCKETS,
)
TASK_RUNS = Counter("septica_task_runs", "Celery tasks run, by task and outcome.", ["task", "outcome"])
SWEEP_OVERDUE = Gauge(
    "septica_sweep_overdue",
    "Running matches the last sweep found overdue (a task late or lost).",
    multiprocess_mode="mostrecent",
)
BOT_DECISION_SECONDS = Histogram(
    "septica_bot_decision_seconds",
    "Time a bot's policy takes to choose, by level.",
    ["level"],
    buckets=FAST_BUCKETS,
)


def exposition(extra: Iterable[Collector] = ()) -> bytes:
    """Every metric of this process (of all this host's processes in multiprocess mode) and those of
    ``extra`` (read as this is called), in Prometheus's text format."""
    registry = CollectorRegistry()
    if MULTIPROCESS_DIR:
        MultiProcessCollector(registry)
    else:
        registry.register(REGISTRY)
    for collector in extra:
        registry.register(collector)
    return generate_latest(registry)


def process_exited(pid: int | None = None) -> None:
    """Drop a finished process's live gauges (its open sockets) from the multiprocess files."""
    if MULTIPROCESS_DIR:
        mark_process_dead(pid or os.getpid())


atexit.register(process_exited)
