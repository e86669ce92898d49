"""A server killed with a table open (kill -9): the seat it held stops counting as present within
the presence TTL, and counts as away from that server's last heartbeat."""

import math
import os
import time

import pytest
from websockets.sync.client import connect

from gameplay import presence
from tests.channels import session_headers
from tests.conftest import ARTIFACTS, database_url_for_tests, free_port, start_daphne, stop, wait_for_port
from tests.gameplay.helpers import human_match

TTL = 2.0
HEARTBEAT = 0.5


def wait_until(check, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.django_db(transaction=True)
def test_a_killed_server_leaves_no_seat_present(settings):
    settings.PRESENCE_TTL_SECONDS = TTL
    match, users = human_match("classic", 2)
    port = free_port()
    if not settings.REDIS_URL:
        pytest.skip("Needs REDIS_URL: one server's memory is no place to share presence.")
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_tests(),
        "LOG_LEVEL": "WARNING",
        "PRESENCE_TTL_SECONDS": str(TTL),
        "PRESENCE_HEARTBEAT_SECONDS": str(HEARTBEAT),
    }
    with (ARTIFACTS / "presence-crash-server.log").open("w") as log:
        server = start_daphne(port, env, log)
        try:
            wait_for_port(port, server)
            headers = [(k.decode(), v.decode()) for k, v in session_headers(users[0]) if k != b"host"]
            socket = connect(f"ws://127.0.0.1:{port}/ws/tables/{match.table_id}/", additional_headers=headers)
            socket.recv(timeout=10)  # the table: the connection is in
            assert presence.connections(match.table_id, 0) == 1
            # Longer than the TTL: the heartbeat keeps the seat present.
            time.sleep(TTL * 1.5)
            assert presence.connections(match.table_id, 0) == 1
            assert presence.away_seconds(match.table_id, 0) is None
            server.kill()  # kill -9: no disconnect handler runs
            server.wait()
            assert wait_until(lambda: presence.connections(match.table_id, 0) == 0)
            away = presence.away_seconds(match.table_id, 0)
            assert away is not None and TTL <= away < math.inf
            socket.close()
        finally:
            if server.poll() is None:
                stop(server)
