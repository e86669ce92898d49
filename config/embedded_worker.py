"""A Celery worker thread inside the web server, for the embedded run mode.

The in-memory broker only exists inside one process, so in the embedded mode the
worker must live in the server process itself. It is a real Celery worker (solo
pool: tasks run one at a time, countdowns honoured), so the task code is exactly
the one that runs on separate workers in production. Beside it, Celery beat runs in a
thread too (its schedule kept in memory), sending the periodic sweep as ``celery beat``
does in production.
"""

import logging
import threading

from celery.beat import EmbeddedService
from celery.worker import WorkController

from .celery import app

logger = logging.getLogger(__name__)


def start_embedded_worker() -> WorkController:
    """Start the worker in a daemon thread and return once it consumes tasks.

    The worker is built inside its own thread: Celery's Django fixup closes the database
    connections of the thread that builds a worker, and those of the caller must survive.
    """
    ready = threading.Event()
    built: list[WorkController] = []

    def run() -> None:
        worker = WorkController(
            app=app,
            pool="solo",
            concurrency=1,
            hostname="embedded@localhost",
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
            ready_callback=lambda *args: ready.set(),
        )
        built.append(worker)
        worker.start()

    threading.Thread(target=run, name="celery-embedded", daemon=True).start()
    if not ready.wait(timeout=30):
        raise RuntimeError("The embedded Celery worker did not start within 30 seconds.")
    logger.info("Embedded Celery worker running in-process.")
    return built[0]


def start_embedded_beat() -> None:
    """Celery beat in a daemon thread, sending the periodic tasks (the sweep) to the embedded worker."""
    EmbeddedService(app, thread=True, scheduler_cls="celery.beat:Scheduler").start()
    logger.info("Embedded Celery beat running in-process.")
