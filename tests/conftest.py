"""Fixtures shared by the whole suite: a real Celery worker and a live Daphne server."""

import base64
import gc
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.conf import settings

from config.procfile import daphne_command

ROOT = Path(__file__).resolve().parent.parent
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""This test process's name when the suite runs in several (pytest-xdist's gw0, gw1, ...), else ""."""
ARTIFACTS = ROOT / "test-artifacts" / WORKER
"""Where the tests' logs and screenshots go: a folder per test process, so no two write one file."""
TEST_QUEUE = f"test-{uuid.uuid4().hex}"
"""Tasks queued by this test session go to a queue of its own, never to a running site's workers."""


def pytest_collection_modifyitems(items) -> None:
    """Browser tests run last: Playwright keeps an event loop running in the main thread for the
    rest of the session, where the async (websocket) tests need to run their own. So does any test on
    the session's live server (``live_server_url``): its worker consumes this session's queue and its
    beat holds the beat lock from then on, which the fault tests' own workers and beats must have."""
    items.sort(
        key=lambda item: (
            "tests/browser/" in str(item.path) or "live_server_url" in getattr(item, "fixturenames", ())
        )
    )


def pytest_configure(config) -> None:
    from django.test import TransactionTestCase

    from config.celery import app

    if WORKER and not settings.EMBEDDED:
        app.conf.broker_url = use_own_redis_database(int(WORKER.removeprefix("gw")))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    app.conf.task_default_queue = TEST_QUEUE
    settings.CELERY_REVIEW_QUEUE = f"{TEST_QUEUE}-reviews"  # as the settings name it from CELERY_QUEUE
    app.conf.task_routes = {"reviews.tasks.run": {"queue": settings.CELERY_REVIEW_QUEUE}}
    TransactionTestCase._fixture_teardown = empty_the_tables


def use_own_redis_database(index: int) -> str:
    """One test process of several (pytest-xdist's ``gw<index>``): its cache, channel layer and broker,
    and those of the servers and workers it starts (through the environment), use Redis database
    ``REDIS_URL``'s plus ``index``, so one process's budgets, presence and queues never meet another's,
    and a test emptying the cache (``FLUSHDB``) empties its own process's only. Redis's publish and
    subscribe ignore the database, so the channel layer's names get a prefix of their own too: one
    process's news (a lobby's, a table's) never reaches another's pages. Each process has its own test
    database as well, whose ids start from 1 like the other's. Done before anything has connected to
    Redis; returns the URL."""
    parts = urlsplit(settings.REDIS_URL)
    url = urlunsplit(parts._replace(path=f"/{int(parts.path.strip('/') or 0) + index}"))
    os.environ["REDIS_URL"] = settings.REDIS_URL = settings.CELERY_BROKER_URL = url
    settings.CACHES["default"]["LOCATION"] = url
    layer = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    layer["hosts"] = [url]
    os.environ["CHANNELS_PREFIX"] = layer["prefix"] = f"{layer['prefix']}-gw{index}"
    return url


KEPT_TABLES = {"django_content_type", "auth_permission"}
"""What Django's flush would empty and then write again, identical, in its post-migrate step."""


def empty_the_tables(case) -> None:
    """After a test that commits, every row it left goes, as Django's ``flush`` would do it, but by
    ``DELETE`` (a few milliseconds) rather than ``TRUNCATE`` and the content types and permissions
    written again (over half a second, a hundred times a session). The foreign keys are deferred, so
    the order of the tables does not matter."""
    from django.db import connections, transaction

    for alias in case._databases_names(include_mirrors=False):
        connection = connections[alias]
        tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            for table in sorted(set(tables) - KEPT_TABLES):
                cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    """Each test starts in the site's default language, whatever language an earlier test (or a
    server thread's request) left active on this thread."""
    from django.utils import translation

    with translation.override(settings.LANGUAGE_CODE):
        yield


@pytest.fixture(autouse=True)
def fresh_budgets() -> None:
    """Each test starts with every budget full (``accounts.limits``): they are kept in the cache by user
    id and address, so an earlier test's spending (the same ids come again in a new test database, and
    every test client comes from one address) would otherwise carry over."""
    forget_budgets("*")


def forget_budgets(pattern: str) -> None:
    """Empty the budgets whose names match ``pattern`` (``accounts.limits``'s keys in the cache): full
    again, as a test that has had a server spend them wants them before going on."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    cache = caches["default"]
    if not isinstance(cache, RedisCache):
        cache.clear()
        return
    client = cache._cache.get_client(write=True)
    if keys := list(client.scan_iter(match=cache.make_key(f"limit:{pattern}"))):
        client.delete(*keys)


@pytest.fixture
def mod_client(client):
    """A member of the Moderators group (staff, no other privilege), logged in."""
    from django.contrib.auth.models import Group

    from tests.factories import make_user

    moderator = make_user("mod", is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    client.force_login(moderator)
    return client


@pytest.fixture(scope="session", autouse=True)
def flush_retried_after_a_deadlock() -> Iterator[None]:
    """A transactional test's flush (one TRUNCATE that locks every table in turn) can deadlock with
    a live server's beat task, whose one query locks several of them in another order. PostgreSQL
    then aborts one of the two; when it aborts the flush, the flush is tried again."""
    from django.core.management.base import CommandError
    from django.core.management.commands import flush
    from psycopg.errors import DeadlockDetected

    handle = flush.Command.handle

    def handle_retried(self, **options):
        for attempt in range(4):
            try:
                return handle(self, **options)
            except CommandError as error:
                database_error = error.__cause__.__cause__ if error.__cause__ else None
                if attempt == 3 or not isinstance(database_error, DeadlockDetected):
                    raise
                time.sleep(0.1 * (attempt + 1))

    flush.Command.handle = handle_retried
    try:
        yield
    finally:
        flush.Command.handle = handle


class FailingInserts:
    """PostgreSQL refusing every row put into a table, as it refuses the statement it broke a deadlock
    with (SQLSTATE 40P01): a database failure met on demand, on the real database."""

    FUNCTION = "test_fail_like_a_deadlock"

    def start(self, table: str) -> None:
        """From now on, every INSERT into ``table`` fails."""
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                f"CREATE OR REPLACE FUNCTION {self.FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$ "
                "BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END $$"
            )
            cursor.execute(
                f"CREATE TRIGGER {self.FUNCTION} BEFORE INSERT ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {self.FUNCTION}()"
            )

    def stop(self) -> None:
        """Every table takes rows again (the triggers go with their function)."""
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(f"DROP FUNCTION IF EXISTS {self.FUNCTION}() CASCADE")


@pytest.fixture
def failing_inserts(transactional_db) -> Iterator[FailingInserts]:
    """``start(table)`` makes the table's inserts fail; whatever the test does, they work again after it."""
    failing = FailingInserts()
    try:
        yield failing
    finally:
        failing.stop()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup) -> Iterator[None]:
    """pytest-django's test database, with every connection to it closed before it is dropped (it
    cannot be while anything is connected). Connections outlive what opened them: asgiref's one sync
    thread lives until the process exits; the consumer tests' threads have ended, but their
    connections wait for the garbage collector (a connection's wrapper refers to itself); a logged
    error's traceback keeps its frames, and the connection they used, in pytest's captured records."""
    yield
    from django.db.backends.base.base import BaseDatabaseWrapper

    gc.collect()
    for wrapper in gc.get_objects():
        if (
            isinstance(wrapper, BaseDatabaseWrapper)
            and wrapper._thread_ident != threading.get_ident()
            and wrapper.connection is not None
        ):
            wrapper.connection.close()


@pytest.fixture(scope="session", autouse=True)
def practice_bundle() -> None:
    """The practice table's Python, built as ``make run`` builds it, before any server starts."""
    from practice import bundle

    bundle.build()


LISTEN_PORTS = range(20_000, 32_000)
"""Where the tests' servers listen: below the kernel's range for outgoing connections (32768 on), so
no connection to PostgreSQL or Redis can take a port between its check and its server's start."""


def free_ports(count: int) -> int:
    """The first of ``count`` consecutive free ports (several servers numbered from one base port)."""
    rng = random.Random()
    for _ in range(200):
        first = rng.randrange(LISTEN_PORTS.start, LISTEN_PORTS.stop - count)
        if all(_bindable(port) for port in range(first, first + count)):
            return first
    raise RuntimeError(f"No {count} consecutive free ports in {LISTEN_PORTS}.")


def free_port() -> int:
    return free_ports(1)


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"The server exited early with code {process.returncode}.")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"Nothing listened on port {port} within {timeout} s.")


def established_to(port: int) -> int:
    """How many TCP connections to ``port`` of this machine are open (Linux's own table of them)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        _slot, local, _remote, state, *_rest = line.split()
        if int(local.rsplit(":", 1)[1], 16) == port and state == "01":  # 01: ESTABLISHED
            count += 1
    return count


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def quick_pauses(settings):
    """Bots act at once and a finished round is on show only for a moment."""
    settings.BOT_PAUSE_SECONDS = (0.0, 0.01)
    settings.ROUND_PAUSE_SECONDS = 0.05


@pytest.fixture
def ana(db):
    from tests.factories import make_user

    return make_user("ana")


@pytest.fixture
def ion(db):
    from tests.factories import make_user

    return make_user("ion")


@pytest.fixture
def celery_worker():
    """A real Celery worker (a thread in this process) consuming this session's own queue."""
    from config.celery import app
    from config.embedded_worker import start_embedded_worker, stop_embedded_worker

    if settings.EMBEDDED:
        pytest.skip("The task tests need REDIS_URL (a real broker).")
    assert app.conf.task_default_queue == TEST_QUEUE
    worker = start_embedded_worker()
    yield worker
    if worker.is_alive():
        stop_embedded_worker(worker)


@pytest.fixture
def mailbox():
    """A real SMTP server on this machine for the test (``tests.mailbox.Mailbox``)."""
    from tests.mailbox import Mailbox

    box = Mailbox(free_port())
    box.start()
    yield box
    box.stop()


@pytest.fixture
def broker() -> Iterator[redis.Redis]:
    """This session's task queue on the Redis broker, empty, for a test that reads what was queued
    (no worker takes it)."""
    from config.celery import app

    if settings.EMBEDDED:
        pytest.skip("The broker is Redis only with REDIS_URL.")
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(app.conf.task_default_queue)
    yield client
    client.delete(app.conf.task_default_queue)


def queued(broker: redis.Redis, task: str | None = None) -> list[dict]:
    """The messages waiting in this session's queue (of ``task`` only, when given), oldest first."""
    from config.celery import app

    messages = [json.loads(raw) for raw in reversed(broker.lrange(app.conf.task_default_queue, 0, -1))]
    return [message for message in messages if task is None or message["headers"]["task"] == task]


def queued_args(message: dict) -> list:
    """The positional arguments a queued task's message carries (its body: base64 of JSON)."""
    return json.loads(base64.b64decode(message["body"]))[0]


def database_url_for_tests() -> str:
    """The pytest test database as a URL, for the processes a test starts."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("The live server tests run on PostgreSQL (set DATABASE_URL).")
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def site_env(**overrides: str) -> dict[str, str]:
    """The environment of a server or worker process on the test database and this session's queue."""
    return {
        **os.environ,
        "DATABASE_URL": database_url_for_tests(),
        "DEBUG": "1",
        "LOG_LEVEL": "WARNING",
        "CELERY_QUEUE": TEST_QUEUE,
        "ROUND_PAUSE_SECONDS": "1",
        "FAST_BOT_PAUSE_SECONDS": "0.05,0.15",
        "POOL_BOT_FILL_SECONDS": "3",
        # A browser fills a form in faster than a person types, and a session's tests register several
        # accounts from this one address (both checks have tests of their own).
        "REGISTRATION_MIN_FORM_SECONDS": "0",
        "REGISTRATIONS_PER_ADDRESS_PER_HOUR": "1000",
        "REVIEW_POSITIONS": "24",  # a review judged as the site does, with fewer playouts
        **overrides,
    }


def start_daphne(port: int, env: dict[str, str], log, **popen) -> subprocess.Popen:
    """Daphne serving the site on ``port`` as production runs it, its output appended to ``log``."""
    return subprocess.Popen(
        daphne_command(port),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        **popen,
    )


def start_celery_worker(
    env: dict[str, str], log, *, beat_schedule: Path | None = None, level: str = "WARNING", **popen
) -> subprocess.Popen:
    """A Celery worker consuming the queue named in ``env`` and its reviews' queue (a small site's one
    worker taking both); with ``beat_schedule``, running beat too."""
    beat = ["-B", "--schedule", str(beat_schedule)] if beat_schedule else []
    queues = f"{env['CELERY_QUEUE']},{env['CELERY_QUEUE']}-reviews"
    options = ["--pool", "solo", "-Q", queues, "-l", level]
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", *beat, *options],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        **popen,
    )


@contextmanager
def site_of_its_own(
    name: str, env: dict[str, str], *, worker: bool = False, beat_schedule: Path | None = None
) -> Iterator[str]:
    """Daphne serving the site on the test database in a process of its own, with ``env`` (the test's
    settings, its own queue), and with ``worker`` a Celery worker (beat too, given ``beat_schedule``);
    their output in ``ARTIFACTS/<name>.log``. Yields the site's address."""
    port = free_port()
    with (ARTIFACTS / f"{name}.log").open("w") as log:
        server = start_daphne(port, env, log)
        celery = start_celery_worker(env, log, beat_schedule=beat_schedule) if worker else None
        try:
            wait_for_port(port, server)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop(server)
            if celery is not None:
                stop(celery)


@pytest.fixture(scope="session")
def live_server_url(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[str]:
    """Daphne serving the site and a Celery worker with beat (the sweep), each in its own process,
    on the test database."""
    beat = tmp_path_factory.mktemp("beat") / "schedule"
    with site_of_its_own("live-server", site_env(), worker=True, beat_schedule=beat) as url:
        yield url


def chromium_path() -> str:
    for candidate in ("chromium-headless-shell", "chromium"):
        found = shutil.which(candidate)
        if found:
            return found
    pytest.skip("No Debian Chromium installed (apt-get install chromium-headless-shell).")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright drives Debian's Chromium; it never downloads a browser."""
    return {
        **browser_type_launch_args,
        "executable_path": chromium_path(),
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    }
