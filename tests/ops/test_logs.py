"""Log lines as JSON (``LOG_FORMAT=json``), each saying which request, table and match it is about,
from this process, a real Daphne and a real Celery worker."""

import io
import json
import logging
import re
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator

import pytest
from django.conf import settings

from config.celery import app
from gameplay import services
from observe import logs
from tests.conftest import free_port, site_env, start_celery_worker, start_daphne, stop, wait_for_port
from tests.gameplay.helpers import first_legal, human_match, wait_until

ACCESS_LINE = re.compile(r'^\S+:\d+ - - \[[^\]]+\] "[A-Z]+ [^"]*" \d{3} \d+$')
"""Daphne's access log: a stream of its own, not the log (nginx, in front, keeps the access log)."""


def json_lines(text: str) -> list[dict]:
    """Each line of a process's output as the object it is; a line that is not JSON fails the test."""
    return [json.loads(line) for line in text.splitlines() if line.strip() and not ACCESS_LINE.match(line)]


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """What the root logger writes, through the site's JSON formatter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield stream
    finally:
        root.removeHandler(handler)


def test_a_line_has_its_time_level_logger_message_process_and_context(json_log):
    with logs.context(table_id=7, match_id=42):
        logging.getLogger("septica.test").warning("A %s line", "test")
        try:
            raise ValueError("the cause")
        except ValueError:
            logging.getLogger("septica.test").exception("It failed")
    logging.getLogger("septica.test").warning("After the block")
    first, failed, after = json_lines(json_log.getvalue())
    assert (
        first["message"] == "A test line"
        and first["level"] == "WARNING"
        and first["logger"] == "septica.test"
    )
    assert first["time"].endswith("+00:00") and first["pid"] > 0
    assert (first["table_id"], first["match_id"]) == (7, 42)
    assert "ValueError: the cause" in failed["exc_info"]
    assert "match_id" not in after and "table_id" not in after


def test_a_request_has_an_id_from_its_proxy_when_sane_else_its_own(client, db, json_log):
    response = client.get("/", HTTP_X_REQUEST_ID="nginx-0123.abc_DEF")
    assert response["X-Request-ID"] == "nginx-0123.abc_DEF"
    for insane in ("two words", "x" * 65, "<script>", ""):
        made = client.get("/", HTTP_X_REQUEST_ID=insane)["X-Request-ID"]
        assert re.fullmatch(r"[0-9a-f]{32}", made)
    missing = f"/no-such-page-{uuid.uuid4().hex}"
    client.get(missing, HTTP_X_REQUEST_ID="find-me-404")
    (line,) = [line for line in json_lines(json_log.getvalue()) if missing in line["message"]]
    assert line["logger"] == "django.request" and line["request_id"] == "find-me-404"


@pytest.mark.django_db(transaction=True)
def test_a_move_and_what_follows_its_commit_are_about_its_match():
    match, _users = human_match()
    seat, action = first_legal(match)
    seen: list[dict] = []
    services.act(
        match_id=match.pk,
        seat=seat,
        action=action,
        expected_version=0,
        committed=lambda _: seen.append(logs.current()),
    )
    assert seen == [{"match_id": match.pk}]
    assert logs.current() == {}


def test_a_daphne_writes_json_lines_carrying_the_request_id(db, tmp_path):
    port = free_port()
    output = tmp_path / "daphne.log"
    with output.open("w") as log:
        server = start_daphne(port, site_env(LOG_FORMAT="json", LOG_LEVEL="INFO"), log)
        try:
            wait_for_port(port, server)
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/no-such-page", headers={"X-Request-ID": "followed-404"}
            )
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(request, timeout=30)
            assert answer.value.code == 404 and answer.value.headers["X-Request-ID"] == "followed-404"
        finally:
            stop(server)
    lines = json_lines(output.read_text())
    assert {line["logger"] for line in lines} >= {"daphne.server", "django.request"}
    assert {line["pid"] for line in lines} == {server.pid}
    (not_found,) = [line for line in lines if line["message"] == "Not Found: /no-such-page"]
    assert not_found["request_id"] == "followed-404" and not_found["level"] == "WARNING"


def test_the_worker_writes_json_lines_carrying_the_match_id(db, tmp_path):
    if settings.EMBEDDED:
        pytest.skip("A worker process needs REDIS_URL (a real broker).")
    queue = f"ops-{uuid.uuid4().hex}"
    output = tmp_path / "worker.log"
    match_id = 987_654_321  # no such match: the task does nothing, and says so under the match's id
    # CELERY_QUIET: no banner (the worker's ``--quiet``), which is a printout rather than the log.
    env = site_env(CELERY_QUEUE=queue, LOG_FORMAT="json", CELERY_QUIET="1")

    def finished() -> bool:
        text = output.read_text()
        return "succeeded" in text and text.endswith("\n")

    with output.open("w") as log:
        worker = start_celery_worker(env, log, level="INFO")
        try:
            app.send_task("gameplay.tasks.deal_next_round", args=[match_id, 0], queue=queue)
            assert wait_until(finished, step=0.2), output.read_text()
            lines = json_lines(output.read_text())  # while it ran: its shutdown notice is no log line
        finally:
            stop(worker)
    assert {line["pid"] for line in lines} == {worker.pid}
    (ready,) = [line for line in lines if line["message"].endswith(" ready.")]
    assert "match_id" not in ready
    (succeeded,) = [line for line in lines if "succeeded" in line["message"]]
    assert succeeded["logger"] == "celery.app.trace" and succeeded["match_id"] == match_id
