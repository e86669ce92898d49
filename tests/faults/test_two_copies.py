"""The site on two hosts, played on this machine: two copies of the production shape (run directories
and ports of their own, one PostgreSQL, one Redis) behind one nginx that hashes the table id over the
Daphnes of both. Tables land on both; the second copy is killed mid-match; its players' pages reconnect
through nginx to the first and the matches go on with no move lost or doubled; beat, run by both
copies' workers, sends the sweep from one of them at a time."""

import time
from pathlib import Path

import pytest
from django.conf import settings

from config.management.commands.prod import NGINX
from gameplay.models import Match
from tests.conftest import TEST_QUEUE, established_to, free_port, free_ports
from tests.factories import make_user
from tests.faults.play import Tab, check_record, play_turn, wait_for
from tests.faults.test_beat import SENT_SWEEP
from tests.faults.test_faults import move_count, person_and_bot

pytestmark = pytest.mark.faults

MOVES_EACH_SIDE = 3
"""Moves each person makes before the second copy is killed, and again after."""


def sweeps_in(log: Path) -> int:
    return log.read_text(errors="replace").count(SENT_SWEEP)


def test_two_copies_behind_one_nginx_share_the_tables_and_survive_losing_one(stack, tmp_path):
    if not NGINX or not Path("/proc/net/tcp").exists():
        pytest.skip("Needs nginx, and Linux's /proc/net/tcp to see which copy holds a socket.")
    nginx, first_daphne, second_daphne = free_port(), free_ports(1), free_ports(1)
    stack.env.update(
        SECRET_KEY=settings.SECRET_KEY,  # the sessions this test signs in with are signed with it
        CELERY_QUEUE=f"{TEST_QUEUE}-two",
        WORKER_LOG_LEVEL="INFO",  # beat says each task it sends
        SOCKET_FRAMES_PER_SECOND="1000",
        SOCKET_FRAMES_BURST="1000",
    )
    stack.env["STATIC_ROOT"] = str(tmp_path / "static-first")
    first = stack.prod(
        *("--port", str(nginx), "--base-port", str(first_daphne), "--daphnes", "1"),
        *("--run-dir", str(tmp_path / "first"), "--upstream", f"127.0.0.1:{second_daphne}"),
    )
    stack.env["STATIC_ROOT"] = str(tmp_path / "static-second")
    second = stack.prod(
        *("--no-proxy", "--base-port", str(second_daphne), "--daphnes", "1"),
        *("--run-dir", str(tmp_path / "second")),
    )
    first_log, second_log = stack.logs[first.pid], stack.logs[second.pid]

    # Tables until each copy holds at least two: nginx's hash, not this test, decides where each goes.
    tabs: dict[int, Tab] = {}
    served_by: dict[int, int] = {}
    for n in range(40):
        if min(list(served_by.values()).count(port) for port in (first_daphne, second_daphne)) >= 2:
            break
        person = make_user(f"p{n}")
        match_id = person_and_bot(person)
        before = {port: established_to(port) for port in (first_daphne, second_daphne)}
        tab = Tab(person, Match.objects.get(pk=match_id).table_id)
        tab.open(f"ws://127.0.0.1:{nginx}")
        tab.shows(0)
        gained = [port for port in before if established_to(port) > before[port]]
        assert len(gained) == 1, gained
        tabs[match_id], served_by[match_id] = tab, gained[0]
    on_second = [match_id for match_id, port in served_by.items() if port == second_daphne]
    assert len(on_second) >= 2 and len(served_by) - len(on_second) >= 2, served_by

    for match_id, tab in tabs.items():
        for _ in range(MOVES_EACH_SIDE):
            play_turn({0: tab}, match_id)

    # Beat runs in both copies' workers; only one sends the sweep (due every second).
    window_start = {log: sweeps_in(log) for log in (first_log, second_log)}
    time.sleep(6)
    sent = {log.name: sweeps_in(log) - window_start[log] for log in (first_log, second_log)}
    assert sum(sent.values()) >= 3 and min(sent.values()) == 0, sent

    moved = {match_id: move_count(match_id) for match_id in tabs}
    survivor_sweeps = sweeps_in(first_log)
    stack.crash_all(second)  # the second host is lost: its Daphne and its worker with it

    for match_id, tab in tabs.items():
        for _ in range(MOVES_EACH_SIDE):
            play_turn({0: tab}, match_id, timeout=60)
    assert all(tab.url == f"ws://127.0.0.1:{nginx}" for tab in tabs.values())
    assert established_to(second_daphne) == 0
    assert established_to(first_daphne) >= len(tabs)  # every page, those of the lost copy too
    for match_id in tabs:
        assert check_record(match_id) >= moved[match_id] + MOVES_EACH_SIDE
    wait_for(lambda: sweeps_in(first_log) > survivor_sweeps + 2, 15, "the survivor's beat sends the sweep")
    assert first.poll() is None
