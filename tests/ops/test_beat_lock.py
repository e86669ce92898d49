"""Who may take beat's lock, against the real Redis: a holder of this host whose process is gone (or
this process's previous life) at once; a live holder, another host's, or a value this code did not
write, never before the lease runs out."""

import subprocess
import uuid
from collections.abc import Iterator

import pytest
import redis
from django.conf import settings

from config.beat import BeatLock, Holder, this_host

LEASE_MS = 60_000


@pytest.fixture
def client() -> Iterator[redis.Redis]:
    if settings.EMBEDDED:
        pytest.skip("Beat's lock lives in Redis (REDIS_URL).")
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield client
    client.close()


@pytest.fixture
def lock(client) -> Iterator[BeatLock]:
    lock = BeatLock(client, f"test-beat-lock:{uuid.uuid4().hex}", LEASE_MS / 1000)
    yield lock
    client.delete(lock.key)


def ended_pid() -> int:
    """The id of a process of this host that has ended."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@pytest.fixture
def live_pid() -> Iterator[int]:
    """The id of another live process of this host."""
    process = subprocess.Popen(["sleep", "60"])
    yield process.pid
    process.kill()
    process.wait()


def held_by(client: redis.Redis, lock: BeatLock, holder: Holder) -> str:
    client.set(lock.key, holder.value, px=LEASE_MS)
    return holder.value


def test_a_holder_of_this_host_whose_process_is_gone_is_taken_over_at_once(client, lock):
    held_by(client, lock, Holder(host=this_host(), pid=ended_pid(), token="old"))
    assert lock.hold()
    assert client.get(lock.key).decode() == lock.holder.value
    assert client.pttl(lock.key) > LEASE_MS - 5_000  # a lease of its own


def test_this_process_under_another_token_is_a_previous_life_taken_over(client, lock):
    held_by(client, lock, Holder(host=this_host(), pid=lock.holder.pid, token="before-the-restart"))
    assert lock.hold()
    assert client.get(lock.key).decode() == lock.holder.value


def test_a_live_holder_of_this_host_keeps_the_lock(client, lock, live_pid):
    value = held_by(client, lock, Holder(host=this_host(), pid=live_pid, token="alive"))
    assert not lock.hold()
    assert client.get(lock.key).decode() == value


@pytest.mark.parametrize("pid", ["ended", "this process"])
def test_another_hosts_holder_keeps_the_lock_until_its_lease_ends(client, lock, pid):
    holder_pid = ended_pid() if pid == "ended" else lock.holder.pid
    value = held_by(client, lock, Holder(host="elsewhere/another-boot", pid=holder_pid, token="far"))
    assert not lock.hold()
    assert client.get(lock.key).decode() == value

    client.delete(lock.key)  # its lease has run out
    assert lock.hold()


def test_a_value_this_code_did_not_write_keeps_the_lock(client, lock):
    client.set(lock.key, uuid.uuid4().hex, px=LEASE_MS)
    assert not lock.hold()


def test_only_one_beat_takes_a_gone_holders_lock(client, lock):
    """Two beats find the same gone holder: the second's compare-and-set finds the lock taken."""
    gone = held_by(client, lock, Holder(host=this_host(), pid=ended_pid(), token="old"))
    first = BeatLock(client, lock.key, LEASE_MS / 1000)
    assert first.hold()
    assert not lock.take_from(gone)
    assert client.get(lock.key).decode() == first.holder.value


def test_the_holder_renews_and_a_warm_stop_hands_the_lock_on(client, lock):
    assert lock.hold()
    client.pexpire(lock.key, 1_000)
    assert lock.hold()
    assert client.pttl(lock.key) > LEASE_MS - 5_000
    lock.release()
    assert client.get(lock.key) is None
