"""A lock per person and purpose, held until the transaction ends: one person's competing writes of one
kind (two taps, two tabs, two tasks at once) take turns, without locking the person's account row, which
other writes lock in an order of their own and which nobody should wait on while mail or a push goes."""

from django.db import connection


def hold_for_person(purpose: int, user_id: int) -> None:
    """Wait for, then hold until the transaction ends, the lock of ``purpose`` (a number of the caller's)
    for ``user_id``."""
    if connection.vendor != "postgresql":
        return  # SQLite (embedded): a write transaction holds the whole database
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [purpose, user_id])
