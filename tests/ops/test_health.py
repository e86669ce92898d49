"""/health/live and /health/ready on PostgreSQL and Redis: each check's verdict, the status a load
balancer reads, and a real worker and beat's sweep making the site ready."""

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from config import health
from config.celery import app
from gameplay.models import Match
from gameplay.services import play_now
from tests.conftest import free_port
from tests.factories import make_user
from tests.faults.play import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_stamps(settings):
    if settings.EMBEDDED:
        pytest.skip("The health tests run on PostgreSQL and Redis.")
    cache.delete_many([health.WORKER_HEARD, health.SWEEP_RAN])
    yield
    cache.delete_many([health.WORKER_HEARD, health.SWEEP_RAN])


def heard_now() -> None:
    cache.set(health.WORKER_HEARD, time.time())
    cache.set(health.SWEEP_RAN, time.time())


def test_live_answers_without_asking_anything(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/health/live")
    assert response.status_code == 200
    assert response.json() == {"status": "live"}
    assert response["Cache-Control"] == "no-store"


def test_ready_names_each_check_and_fails_while_no_worker_was_ever_heard_from(client):
    response = client.get("/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unready"
    checks = body["checks"]
    assert set(checks) == {"database", "channel_layer", "broker", "worker", "sweep"}
    assert checks["database"]["ok"] and checks["channel_layer"]["ok"] and checks["broker"]["ok"]
    assert checks["worker"] == {
        "ok": False,
        "error": "no Celery worker has been heard from",
        "ms": checks["worker"]["ms"],
    }
    assert checks["sweep"]["ok"] is False and checks["sweep"]["error"] == "the sweep has not run"
    assert response["Cache-Control"] == "no-store"


def test_a_real_worker_running_the_sweep_makes_the_site_ready(client, celery_worker):
    app.send_task(health.SWEEP_TASK)
    response = wait_for(
        lambda: (answer := client.get("/health/ready")).status_code == 200 and answer,
        20,
        "the site is ready once the worker has run the sweep",
    )
    checks = response.json()["checks"]
    assert response.json()["status"] == "ready"
    assert checks["worker"]["silent_seconds"] < 20
    assert checks["sweep"]["since_seconds"] < 20 and checks["sweep"]["overdue_matches"] == 0


def test_a_worker_silent_too_long_makes_the_site_unready(client, settings):
    heard_now()
    cache.set(health.WORKER_HEARD, time.time() - settings.HEALTH_WORKER_SILENT_SECONDS - 30)
    response = client.get("/health/ready")
    assert response.status_code == 503
    worker = response.json()["checks"]["worker"]
    assert worker["ok"] is False and worker["silent_seconds"] >= settings.HEALTH_WORKER_SILENT_SECONDS + 30
    assert worker["error"].startswith("no worker heard from for ")
    assert response.json()["checks"]["sweep"]["ok"] is True


def test_a_match_overdue_beyond_the_sweep_s_slack_makes_the_site_unready(client, settings):
    heard_now()
    table = play_now(user=make_user("ana"), game="americana")
    assert client.get("/health/ready").status_code == 200
    behind = settings.HEALTH_SWEEP_BEHIND_SECONDS
    Match.objects.filter(table=table).update(due_at=timezone.now() - timedelta(seconds=behind + 5))
    response = client.get("/health/ready")
    assert response.status_code == 503
    sweep = response.json()["checks"]["sweep"]
    assert sweep["overdue_matches"] == 1
    assert sweep["error"] == f"1 running matches are overdue by more than {behind:g} s"


def test_a_sweep_that_stopped_running_makes_the_site_unready(client, settings):
    heard_now()
    cache.set(health.SWEEP_RAN, time.time() - settings.HEALTH_SWEEP_BEHIND_SECONDS - 10)
    sweep = client.get("/health/ready").json()["checks"]["sweep"]
    assert sweep["ok"] is False and sweep["error"].startswith("the sweep last ran ")


def test_an_unreachable_broker_fails_its_check_alone_and_in_time(client, settings):
    heard_now()
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = client.get("/health/ready")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["broker"]["ok"] is False and "Error" in checks["broker"]["error"]
    assert [name for name, check in checks.items() if not check["ok"]] == ["broker"]


def test_a_check_that_does_not_answer_in_time_fails_with_the_time_it_was_given(client, settings):
    heard_now()
    settings.HEALTH_TIMEOUT_SECONDS = 0.000001
    response = client.get("/health/ready")
    assert response.status_code == 503
    failed = [check for check in response.json()["checks"].values() if not check["ok"]]
    assert failed and all(check["error"] == "no answer within 1e-06 s" for check in failed)


def test_the_channel_layer_check_leaves_no_subscription_behind(client):
    """Asked every few seconds by a load balancer, each check must not keep a channel open."""
    import asyncio

    from channels.layers import get_channel_layer

    async def subscribed_after_checks() -> int:
        layer = get_channel_layer()
        for _ in range(5):
            verdict = await health._channel_layer()
            assert verdict == {"ok": True}
        return len(layer._get_layer().channels)

    assert asyncio.run(subscribed_after_checks()) == 0


def test_a_stranger_reads_the_status_alone(client, settings):
    settings.HEALTH_TOKEN = "on-call-secret"
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"  # fails, naming host and port
    for stranger in (
        client.get("/health/ready", REMOTE_ADDR="203.0.113.9"),
        client.get("/health/ready", REMOTE_ADDR="203.0.113.9", headers={"X-Health-Token": "a-guess"}),
    ):
        assert stranger.status_code == 503
        assert stranger.json() == {"status": "unready"}


def test_this_machine_and_the_token_read_every_check(client, settings):
    settings.HEALTH_TOKEN = "on-call-secret"
    port = free_port()
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{port}/0"
    for insider in (
        client.get("/health/ready", REMOTE_ADDR="127.0.0.1"),
        client.get("/health/ready", REMOTE_ADDR="::1"),
        client.get("/health/ready", REMOTE_ADDR="203.0.113.9", headers={"X-Health-Token": "on-call-secret"}),
    ):
        assert insider.status_code == 503
        broker = insider.json()["checks"]["broker"]
        assert broker["ok"] is False and str(port) in broker["error"]


def test_no_token_is_accepted_while_none_is_set(client, settings):
    settings.HEALTH_TOKEN = ""
    response = client.get("/health/ready", REMOTE_ADDR="203.0.113.9", headers={"X-Health-Token": ""})
    assert response.json() == {"status": "unready"}
