"""/metrics: who may read it, and that what it says is what happened (moves, requests, sockets, tasks,
the database's tables and matches), from this process and, in multiprocess mode, from a real worker."""

import urllib.request
import uuid

import pytest
import redis
from django.conf import settings
from django.db.models import Count
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect

from bots import services as bot_services
from config.celery import app
from gameplay import services
from gameplay.models import Match
from tables import services as table_services
from tables.models import Table
from tests.channels import open_socket
from tests.conftest import free_port, site_env, start_celery_worker, start_daphne, stop, wait_for_port
from tests.factories import make_user
from tests.gameplay.helpers import first_legal, human_match, wait_until

type Samples = dict[tuple[str, frozenset], float]


def samples(text: str) -> Samples:
    """Every sample of an exposition, by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def scrape(client) -> Samples:
    response = client.get("/metrics")
    assert response.status_code == 200
    return samples(response.content.decode())


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


# --- Who may read it ----------------------------------------------------------------------------


def test_metrics_answer_a_request_straight_from_this_machine_uncached(client, db):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert response["Cache-Control"] == "no-store"
    assert b"# TYPE septica_moves_total counter" in response.content


def test_metrics_refuse_a_request_through_the_proxy_without_a_token(client, db):
    assert client.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 404


def test_metrics_answer_the_right_token_from_anywhere_and_refuse_a_wrong_one(client, db, settings):
    settings.METRICS_TOKEN = "scrape-me-please"
    far = {"REMOTE_ADDR": "10.1.2.3", "HTTP_X_FORWARDED_FOR": "203.0.113.9"}
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-me-please", **far).status_code == 200
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-me-PLEASE", **far).status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="scrape-me-please", **far).status_code == 404


def test_without_a_token_set_an_empty_bearer_is_refused(client, db, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ", REMOTE_ADDR="10.1.2.3").status_code == 404


# --- What it says ---------------------------------------------------------------------------------


def test_a_move_counts_once_it_is_committed_and_broadcast(client, db, django_capture_on_commit_callbacks):
    match, _users = human_match()
    before = scrape(client)
    seat, action = first_legal(match)
    with pytest.raises(services.ActionRefused):
        services.act(match_id=match.pk, seat=1 - seat, action=action)
    with django_capture_on_commit_callbacks(execute=True):
        services.act(match_id=match.pk, seat=seat, action=action, expected_version=0)
    after = scrape(client)
    assert (
        value(after, "septica_moves_total", game="americana")
        == value(before, "septica_moves_total", game="americana") + 1
    )
    assert (
        value(after, "septica_move_broadcast_seconds_count")
        == value(before, "septica_move_broadcast_seconds_count") + 1
    )
    assert value(after, "septica_move_broadcast_seconds_sum") > value(
        before, "septica_move_broadcast_seconds_sum"
    )


def test_a_request_counts_under_its_view_s_name_and_status_never_its_path(client, db):
    before = scrape(client)
    assert client.get("/").status_code == 200
    missing = f"/no-such-page-{uuid.uuid4().hex}"
    assert client.get(missing).status_code == 404
    after = scrape(client)
    assert (
        value(after, "septica_http_requests_total", view="home", status="200")
        == value(before, "septica_http_requests_total", view="home", status="200") + 1
    )
    assert (
        value(after, "septica_http_requests_total", view="unmatched", status="404")
        == value(before, "septica_http_requests_total", view="unmatched", status="404") + 1
    )
    assert (
        value(after, "septica_http_request_duration_seconds_count", view="home")
        == value(before, "septica_http_request_duration_seconds_count", view="home") + 1
    )
    assert not any(missing in str(labels) for _name, labels in after)


def test_the_tables_and_matches_gauges_are_the_database_s_counts(client, db):
    human_match("americana", 3, prefix="a")
    human_match("classic", 2, prefix="c")
    finished, _users = human_match("classic", 2, prefix="f")
    Match.objects.filter(pk=finished.pk).update(status=Match.Status.FINISHED)
    Table.objects.filter(pk=finished.table_id).update(status=Table.Status.FINISHED)
    services.table_create(
        host=make_user("host"), game="americana", options={"players": 2}, turn_clock=45, is_private=False
    )
    found = scrape(client)
    tables = {
        (game, status): n
        for game, status, n in Table.objects.filter(status__in=["waiting", "playing"])
        .values_list("game", "status")
        .annotate(n=Count("id"))
    }
    assert tables == {("americana", "waiting"): 1, ("americana", "playing"): 1, ("classic", "playing"): 1}
    assert tables == {
        (dict(labels)["game"], dict(labels)["status"]): count
        for (name, labels), count in found.items()
        if name == "septica_tables_open"
    }
    for game in ("americana", "classic"):
        running = Match.objects.filter(status="playing", game=game).count()
        assert value(found, "septica_matches_running", game=game) == running > 0


def test_the_tasks_queued_are_the_broker_s_queue(client, db):
    if settings.EMBEDDED:
        pytest.skip("The queue is in Redis only with REDIS_URL.")
    queue = app.conf.task_default_queue
    broker = redis.Redis.from_url(settings.REDIS_URL)
    try:
        before = value(scrape(client), "septica_tasks_queued", queue=queue)
        assert before == broker.llen(queue)
        for _ in range(2):
            app.send_task("gameplay.tasks.deal_next_round", args=[0, 0])
        assert value(scrape(client), "septica_tasks_queued", queue=queue) == before + 2
    finally:
        broker.delete(queue)  # this session's own queue, no worker reading it now
        broker.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_an_open_websocket_counts_in_its_process_until_it_closes():
    from prometheus_client import REGISTRY

    def open_now() -> float:
        return REGISTRY.get_sample_value("septica_websockets_open", {"consumer": "SiteConsumer"}) or 0.0

    before = open_now()
    socket = await open_socket("/ws/me/")
    assert open_now() == before + 1
    await socket.disconnect()
    assert open_now() == before


def test_the_sweep_says_how_many_matches_it_found_overdue(client, db):
    late, _users = human_match(clock=45, prefix="late")
    human_match(clock=45, prefix="on")
    Match.objects.filter(pk=late.pk).update(due_at=late.started_at.replace(year=2000))
    services.sweep()
    assert value(scrape(client), "septica_sweep_overdue") == 1
    services.sweep()  # the stand-in acted: nothing is overdue now
    assert value(scrape(client), "septica_sweep_overdue") == 0


def test_a_bot_s_choice_is_timed_by_its_level(client, db):
    host = make_user("host")
    table = services.table_create(
        host=host, game="classic", options={"players": 2}, turn_clock=0, is_private=True
    )
    table_services.bot_add(table_id=table.pk, by=host, position=1, level="hard")
    match = Match.objects.get(table=table)
    seat, action = first_legal(match)
    if seat == 0:
        services.act(match_id=match.pk, seat=0, action=action, expected_version=0)
    match.refresh_from_db()
    before = value(scrape(client), "septica_bot_decision_seconds_count", level="hard")
    assert bot_services.bot_turn(match_id=match.pk, expected_version=match.version)
    assert value(scrape(client), "septica_bot_decision_seconds_count", level="hard") == before + 1


# --- A host's processes, in multiprocess mode -----------------------------------------------------


def test_a_daphne_reports_its_sockets_and_the_worker_s_tasks_from_the_multiprocess_files(db, tmp_path):
    if settings.EMBEDDED:
        pytest.skip("A worker process needs REDIS_URL (a real broker).")
    files = tmp_path / "metrics"
    files.mkdir()
    port = free_port()
    env = site_env(CELERY_QUEUE=f"ops-{uuid.uuid4().hex}", PROMETHEUS_MULTIPROC_DIR=str(files))
    task = "gameplay.tasks.deal_next_round"

    def from_daphne() -> Samples:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
            return samples(answer.read().decode())

    def runs(found: Samples, outcome: str) -> float:
        return value(found, "septica_task_runs_total", task=task, outcome=outcome)

    with (tmp_path / "processes.log").open("w") as log:
        server = start_daphne(port, env, log)
        worker = start_celery_worker(env, log)
        try:
            wait_for_port(port, server)
            sockets = {"consumer": "SiteConsumer", "pid": str(server.pid)}
            with connect(f"ws://127.0.0.1:{port}/ws/me/", origin=f"http://127.0.0.1:{port}"):
                assert wait_until(lambda: value(from_daphne(), "septica_websockets_open", **sockets) == 1)
                app.send_task(task, args=[0, 0], queue=env["CELERY_QUEUE"])  # no such match: succeeds
                app.send_task(task, args=[], queue=env["CELERY_QUEUE"])  # its arguments missing: fails
                assert wait_until(
                    lambda: runs(from_daphne(), "success") == runs(from_daphne(), "failure") == 1
                )
            assert wait_until(lambda: value(from_daphne(), "septica_websockets_open", **sockets) == 0)
            found = from_daphne()
        finally:
            stop(worker)
            stop(server)
    assert value(found, "septica_task_lag_seconds_count", task=task) == 2
    assert value(found, "septica_http_requests_total", view="metrics", status="200") >= 1
    # A process that exits leaves no live gauge behind (its sockets are no longer open anywhere).
    assert not list(files.glob(f"gauge_live*_{server.pid}.db"))
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(files))
    assert not [
        sample
        for family in registry.collect()
        for sample in family.samples
        if sample.name == "septica_websockets_open"
    ]
