"""``off_thread``: Django's connection health check (a ``SELECT 1``) runs once a connection has not
ended a call well for a while, not before every call; a connection that died is still replaced."""

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from django.db import OperationalError, connection
from django.db.backends.postgresql.base import DatabaseWrapper

from tables import consumers
from tables.consumers import off_thread

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@contextlib.asynccontextmanager
async def one_thread():
    """Every ``off_thread`` call on the same thread (and so the same connection)."""
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(max_workers=1)
    loop.set_default_executor(executor)
    try:
        yield
    finally:
        await off_thread(close_connection)()
        executor.shutdown()


@pytest.fixture
def health_checks(monkeypatch) -> list[bool]:
    """Each health check Django runs, with its answer (the real check runs)."""
    checks = []
    real = DatabaseWrapper.is_usable

    def counted(self):
        checks.append(real(self))
        return checks[-1]

    monkeypatch.setattr(DatabaseWrapper, "is_usable", counted)
    return checks


def close_connection() -> None:
    connection.close()


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def terminate(pid: int) -> None:
    """End that backend from a connection of the test's own, as a database restart would."""
    database = connection.settings_dict
    with psycopg.connect(
        dbname=database["NAME"], user=database["USER"], host=database["HOST"], port=database["PORT"] or None
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


async def test_a_connection_that_just_worked_is_not_checked_again(health_checks):
    async with one_thread():
        first = await off_thread(backend_pid)()
        assert await off_thread(backend_pid)() == first
        assert await off_thread(backend_pid)() == first
        assert health_checks == []


async def test_a_connection_idle_for_longer_is_checked(health_checks, monkeypatch):
    async with one_thread():
        monkeypatch.setattr(consumers, "TRUSTED_FOR_SECONDS", 0.0)
        first = await off_thread(backend_pid)()
        assert await off_thread(backend_pid)() == first
        assert health_checks == [True]


async def test_a_dead_connection_is_replaced_by_the_check(health_checks, monkeypatch):
    async with one_thread():
        monkeypatch.setattr(consumers, "TRUSTED_FOR_SECONDS", 0.0)
        first = await off_thread(backend_pid)()
        await asyncio.to_thread(terminate, first)
        second = await off_thread(backend_pid)()
        assert second != first
        assert False in health_checks


async def test_a_connection_that_died_while_trusted_fails_once_then_is_replaced(health_checks):
    async with one_thread():
        first = await off_thread(backend_pid)()
        await asyncio.to_thread(terminate, first)
        with pytest.raises(OperationalError):
            await off_thread(backend_pid)()
        second = await off_thread(backend_pid)()
        assert second != first
