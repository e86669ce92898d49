"""A Celery worker thread inside the web server, for the embedded run mode.

The in-memory broker only exists inside one process, so in the embedded mode the
worker must live in the server process itself. It is a real Celery worker (solo
pool: tasks run one at a time, countdowns honoured), so the task code is exactly
the one that runs on separate workers in production. Beside it, Celery beat runs in a
thread too (its schedule kept in memory), sending the periodic sweep as ``celery beat``
does in production. It takes the reviews' queue too: in this one-process mode a review being judged
holds the bot turns back for its seconds, which production's own ``reviewer`` process avoids.
"""

import logging
import threading

from celery.beat import EmbeddedService
from celery.platforms import EX_OK
from celery.worker import WorkController, state
from django.conf import settings

from .celery import app

logger = logging.getLogger(__name__)


def start_embedded_worker() -> threading.Thread:
    """Start the worker in a daemon thread and return that thread once the worker consumes tasks.

    The worker is built inside its own thread: Celery's Django fixup closes the database
    connections of the thread that builds a worker, and those of the caller must survive.
    """
    ready = threading.Event()

    def run() -> None:
        worker = WorkController(
            app=app,
            pool="solo",
            concurrency=1,
            hostname="embedded@localhost",
            queues=[app.conf.task_default_queue, settings.CELERY_REVIEW_QUEUE],
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
            ready_callback=lambda *args: ready.set(),
        )
        worker.start()

    thread = threading.Thread(target=run, name="celery-embedded", daemon=True)
    thread.start()
    if not ready.wait(timeout=30):
        raise RuntimeError("The embedded Celery worker did not start within 30 seconds.")
    logger.info("Embedded Celery worker running in-process.")
    return thread


def stop_embedded_worker(thread: threading.Thread, timeout: float = 30) -> None:
    """Stop the worker warmly (its task in hand finished and acknowledged) from inside its own thread.

    ``WorkController.stop`` called from another thread closes the broker connection while the
    worker's loop still reads from it, and the two threads can wait on one socket forever. Instead
    the flag Celery's loop checks on every turn asks the worker to shut itself down.
    """
    state.should_stop = EX_OK
    thread.join(timeout)
    state.should_stop = None  # the next worker started in this process runs
    if thread.is_alive():
        raise RuntimeError(f"The embedded Celery worker did not stop within {timeout} seconds.")


def start_embedded_beat() -> None:
    """Celery beat in a daemon thread, sending the periodic tasks (the sweep) to the embedded worker."""
    EmbeddedService(app, thread=True, scheduler_cls="celery.beat:Scheduler").start()
    logger.info("Embedded Celery beat running in-process.")
