from collections.abc import Iterator

import pytest
from django.conf import settings

from tests.faults.stack import Stack

STACK_ENV = {"BOT_PAUSE_SECONDS": "0.2,0.5", "SWEEP_SECONDS": "1", "BEAT_LOCK_SECONDS": "2"}
"""Bots act quickly and the sweep runs every second, so the suite stays short; a worker a test killed
holds beat's lock for two seconds at most."""


@pytest.fixture
def stack(transactional_db, tmp_path, request) -> Iterator[Stack]:
    """Processes of the site for one test, on the test database; all ended when the test ends."""
    if settings.EMBEDDED:
        pytest.skip("The fault tests need REDIS_URL and PostgreSQL (DATABASE_URL).")
    running = Stack(name=request.node.name, workdir=tmp_path)
    running.env.update(STACK_ENV)
    try:
        yield running
    finally:
        running.close()
