"""Beat runs once however many workers run it: two workers each started with ``-B`` on one Redis,
only the lock's holder sends the periodic tasks, and the other takes over when the holder dies. A
holder killed with ``-9`` on this host is taken over at once, long before its lease would end."""

import time

import redis
from django.conf import settings

from config.beat import Holder, this_host
from tests.faults.play import wait_for
from tests.faults.stack import _descendants

SENT_SWEEP = "Sending due task sweep (gameplay.tasks.sweep)"
LOCK_SECONDS = 3
LONG_LEASE_SECONDS = 60
"""A lease no hand-over in this test waits for: the replacement takes the lock long before its end."""


def sweeps_sent(stack, process) -> int:
    return stack.logs[process.pid].read_text(errors="replace").count(SENT_SWEEP)


def test_two_workers_running_beat_send_the_sweep_once_and_the_survivor_takes_over(stack):
    stack.env["BEAT_LOCK_SECONDS"] = str(LOCK_SECONDS)
    first, second = stack.worker(), stack.worker()
    time.sleep(8)  # the sweep is due every second (SWEEP_SECONDS=1)
    counts = {worker.pid: sweeps_sent(stack, worker) for worker in (first, second)}
    holder, other = (first, second) if counts[first.pid] else (second, first)
    assert counts[holder.pid] >= 4, counts
    assert counts[other.pid] == 0, f"both beats sent the sweep: {counts}"

    stack.crash(holder)
    wait_for(
        lambda: sweeps_sent(stack, other) >= 2,
        LOCK_SECONDS + 10,
        "the surviving worker's beat sends the sweep once the lock's holder is gone",
    )


def test_a_holder_killed_with_9_is_taken_over_before_its_lease_would_end(stack):
    stack.env["BEAT_LOCK_SECONDS"] = str(LONG_LEASE_SECONDS)
    client = redis.Redis.from_url(stack.env["REDIS_URL"])
    key = f"{settings.CACHES['default']['KEY_PREFIX']}:beat-lock:{stack.env['CELERY_QUEUE']}"

    first = stack.worker()
    wait_for(lambda: sweeps_sent(stack, first), 30, "the first worker's beat sends the sweep")
    holder = Holder.read(client.get(key))
    assert holder is not None and holder.host == this_host()
    assert holder.pid in _descendants(first.pid)  # its beat, a process the worker forked
    standby = stack.worker()
    wait_for(lambda: sweeps_sent(stack, first) >= 3, 30, "the holder goes on sending the sweep")
    assert sweeps_sent(stack, standby) == 0

    stack.crash(first)
    lease_left = client.pttl(key) / 1000  # nobody renews it any more
    lease_ends = time.monotonic() + lease_left
    assert lease_left > LONG_LEASE_SECONDS / 2
    replacement = stack.worker()

    survivors = (standby, replacement)
    taker = wait_for(
        lambda: next((worker for worker in survivors if sweeps_sent(stack, worker)), None),
        lease_left,
        "a surviving worker's beat sends the sweep while the dead holder's lease still runs",
    )
    assert time.monotonic() < lease_ends
    new_holder = Holder.read(client.get(key))
    assert new_holder is not None and new_holder.pid in _descendants(taker.pid)
    assert new_holder.pid != holder.pid

    # One beat sends at a time: the other survivor, asking all along, finds the new holder alive.
    other = standby if taker is replacement else replacement
    wait_for(lambda: sweeps_sent(stack, taker) >= 4, 30, "the new holder goes on sending the sweep")
    assert sweeps_sent(stack, other) == 0
    assert Holder.read(client.get(key)) == new_holder
