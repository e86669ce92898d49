"""The site's own processes for a fault test: Daphne servers, a Celery worker running beat and, when
a test asks, a private Redis. Each is started here, in a session of its own, so a crash kills the
process and whatever it forked (the worker's beat) by its id, never anything else on the machine."""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import (
    ARTIFACTS,
    ROOT,
    free_port,
    site_env,
    start_celery_worker,
    start_daphne,
    wait_for_port,
)

START_TIMEOUT = 60.0


@dataclass
class Stack:
    """Processes started for one test, on the test database; ``close`` ends those still running."""

    name: str
    workdir: Path
    env: dict[str, str] = field(default_factory=site_env)
    processes: list[subprocess.Popen] = field(default_factory=list)
    servers: dict[str, subprocess.Popen] = field(default_factory=dict)
    """Each Daphne process by its websocket address."""
    started: int = 0
    redis_port: int | None = None
    logs: dict[int, Path] = field(default_factory=dict)
    """Each process's output, by its id."""

    def _log(self, what: str) -> Path:
        self.started += 1
        folder = ARTIFACTS / "faults"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{self.name}-{self.started}-{what}.log"

    def _spawn(self, start, what: str) -> tuple[subprocess.Popen, Path]:
        path = self._log(what)
        with path.open("w") as log:
            process = start(log)
        self.processes.append(process)
        self.logs[process.pid] = path
        return process, path

    def daphne(self) -> str:
        """A new Daphne process; its websocket address once it listens."""
        port = free_port()
        process, _log = self._spawn(
            lambda log: start_daphne(port, self.env, log, start_new_session=True), "daphne"
        )
        wait_for_port(port, process, START_TIMEOUT)
        url = f"ws://127.0.0.1:{port}"
        self.servers[url] = process
        return url

    def daphne_process(self, url: str) -> subprocess.Popen:
        return self.servers[url]

    def worker(self) -> subprocess.Popen:
        """A new Celery worker with beat embedded (a fresh schedule file each time), once it is ready."""
        schedule = self.workdir / f"beat-{self.started}"
        process, log = self._spawn(
            lambda log: start_celery_worker(
                self.env, log, beat_schedule=schedule, level="INFO", start_new_session=True
            ),
            "worker",
        )
        return _said(process, log, " ready.", START_TIMEOUT, "The worker")

    def prod(self, *options: str, timeout: float = 180.0) -> subprocess.Popen:
        """A copy of the production shape (``manage.py prod`` with ``options``: its nginx, Daphnes and
        worker, in a process group of their own), once it says the site is ready."""
        process, log = self._spawn(
            lambda log: subprocess.Popen(
                [sys.executable, "manage.py", "prod", *options],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            ),
            "prod",
        )
        return _said(process, log, "The site is ready", timeout, "The production shape")

    def redis(self, port: int | None = None) -> subprocess.Popen:
        """A private, memory-only Redis (on ``port``, or a free one) for the processes started after it."""
        server = shutil.which("redis-server")
        if server is None:
            pytest.skip("redis-server is not installed.")
        port = port or free_port()
        process, _log = self._spawn(
            lambda log: subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            ),
            "redis",
        )
        wait_for_port(port, process, START_TIMEOUT)
        self.env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        self.redis_port = port
        return process

    @staticmethod
    def crash(process: subprocess.Popen) -> None:
        """``kill -9`` the process and what it forked, as a machine losing it would."""
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    @staticmethod
    def crash_all(process: subprocess.Popen) -> None:
        """``kill -9`` the process and every process under it, as a host lost at once would. honcho
        starts each of the production shape's processes in a session of its own, so its process group
        alone would leave them running."""
        for pid in [process.pid, *_descendants(process.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()

    def close(self) -> None:
        """Stop every process started (and what each forked), politely, then not."""
        for process in reversed(self.processes):
            _signal_group(process, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait()


def _said(process: subprocess.Popen, log: Path, words: str, timeout: float, what: str) -> subprocess.Popen:
    """``process`` once its ``log`` holds ``words`` (it says it is ready); fails if it dies or is slow."""
    deadline = time.monotonic() + timeout
    while words not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not get ready; see {log}.")
        time.sleep(0.1)
    return process


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid``, children first, from Linux's /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):  # a process gone meanwhile
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, unseen = [], list(children.get(pid, []))
    while unseen:
        child = unseen.pop()
        found.append(child)
        unseen.extend(children.get(child, []))
    return found


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it and everything it forked have exited
        os.killpg(process.pid, sig)
