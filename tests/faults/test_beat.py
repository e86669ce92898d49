"""Beat runs once however many workers run it: two workers each started with ``-B`` on one Redis,
only the lock's holder sends the periodic tasks, and the other takes over when the holder dies."""

import time

from tests.faults.play import wait_for

SENT_SWEEP = "Sending due task sweep (gameplay.tasks.sweep)"
LOCK_SECONDS = 3


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
