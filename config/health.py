"""Health checks for a load balancer, ``manage.py prod`` and the people on call.

``/health/live`` says the process answers (it touches nothing). ``/health/ready`` says whether the
site can play here: PostgreSQL answers, a message goes through the channel layer and back, the broker
answers, a Celery worker was heard from lately and the sweep is not behind. Each check has its own
verdict in the JSON body; the status is 503 when any fails, so a machine reads the code and a person
reads the body. The checks run at once, each within ``HEALTH_TIMEOUT_SECONDS``. A stranger reads the
status alone: the checks' errors name hosts, ports and users, for this machine or ``HEALTH_TOKEN``.
"""

import asyncio
import contextlib
import ipaddress
import time
from collections.abc import Awaitable
from datetime import timedelta
from typing import Any

import redis.asyncio as aioredis
from asgiref.sync import sync_to_async
from celery.signals import task_postrun
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts.services import client_address
from gameplay.models import Match

WORKER_HEARD = "health:worker-heard"
SWEEP_RAN = "health:sweep-ran"
SWEEP_TASK = "gameplay.tasks.sweep"
TOKEN_HEADER = "X-Health-Token"
STAMP_KEPT_SECONDS = 24 * 3600
"""A stamp outlives any silence worth reporting, so "silent for 3 h" is said rather than "never"."""

type Check = dict[str, Any]


@task_postrun.connect(weak=False)
def worker_heard(sender=None, **kwargs) -> None:
    """Every task a worker finishes stamps the time (beat's sweep alone does so every few seconds);
    the sweep also stamps its own run."""
    now = time.time()
    cache.set(WORKER_HEARD, now, STAMP_KEPT_SECONDS)
    if getattr(sender, "name", None) == SWEEP_TASK:
        cache.set(SWEEP_RAN, now, STAMP_KEPT_SECONDS)


def live(request: HttpRequest) -> JsonResponse:
    """The process answers: nothing else is asked, so a slow database never gets a server restarted."""
    return _answer({"status": "live"}, ok=True)


async def ready(request: HttpRequest) -> JsonResponse:
    """Every dependency of play, each with its verdict; 503 when any fails."""
    names = ("database", "channel_layer", "broker", "worker", "sweep")
    checks = [_database(), _channel_layer(), _broker(), _worker(), _sweep()]
    verdicts = await asyncio.gather(*(_timed(check) for check in checks))
    ok = all(verdict["ok"] for verdict in verdicts)
    body: dict[str, Any] = {"status": "ready" if ok else "unready"}
    if _may_see_details(request):
        body["checks"] = dict(zip(names, verdicts, strict=True))
    return _answer(body, ok=ok)


def _may_see_details(request: HttpRequest) -> bool:
    """This machine (``manage.py prod``, the people on call) or a caller with ``HEALTH_TOKEN``."""
    token = settings.HEALTH_TOKEN
    if token and constant_time_compare(request.headers.get(TOKEN_HEADER, ""), token):
        return True
    try:
        return ipaddress.ip_address(client_address(request)).is_loopback
    except ValueError:
        return False


def _answer(body: dict, *, ok: bool) -> JsonResponse:
    """A verdict is of this moment: no proxy or browser keeps it."""
    response = JsonResponse(body, status=200 if ok else 503)
    response["Cache-Control"] = "no-store"
    return response


async def _timed(check: Awaitable[Check]) -> Check:
    """The check's verdict with how long it took, or a failure once it has taken too long."""
    started = time.perf_counter()
    try:
        verdict = await asyncio.wait_for(check, settings.HEALTH_TIMEOUT_SECONDS)
    except TimeoutError:
        verdict = {"ok": False, "error": f"no answer within {settings.HEALTH_TIMEOUT_SECONDS:g} s"}
    except Exception as error:  # a check that fails says why; the others still answer
        verdict = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    return {**verdict, "ms": round((time.perf_counter() - started) * 1000, 1)}


@sync_to_async
def _database() -> Check:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"ok": True}


async def _channel_layer() -> Check:
    """A message sent to a channel of this process's own comes back (through Redis, in production)."""
    layer = get_channel_layer()
    channel = await layer.new_channel("health.")
    sent = {"type": "health.echo", "at": time.time()}
    await layer.send(channel, sent)
    came = await layer.receive(channel)
    # A receive cancelled at once unsubscribes the channel (``RedisPubSubChannelLayer`` keeps it
    # otherwise): each check would leave one behind.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.001)
    return {"ok": came == sent}


async def _broker() -> Check:
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://")):
        return {"ok": True, "broker": "in this process"}
    client = aioredis.Redis.from_url(url, socket_connect_timeout=settings.HEALTH_TIMEOUT_SECONDS)
    try:
        await client.ping()
    finally:
        await client.aclose()
    return {"ok": True}


async def _worker() -> Check:
    heard = await cache.aget(WORKER_HEARD)
    if heard is None:
        return {"ok": False, "error": "no Celery worker has been heard from"}
    silent = time.time() - heard
    limit = settings.HEALTH_WORKER_SILENT_SECONDS
    verdict = {"ok": silent <= limit, "silent_seconds": round(silent, 1)}
    return verdict if verdict["ok"] else {**verdict, "error": f"no worker heard from for {silent:.0f} s"}


async def _sweep() -> Check:
    """The sweep ran lately, and no running match waits on it for longer than it should."""
    behind = settings.HEALTH_SWEEP_BEHIND_SECONDS
    ran = await cache.aget(SWEEP_RAN)
    since = None if ran is None else round(time.time() - ran, 1)
    overdue = await Match.objects.filter(
        status=Match.Status.PLAYING, due_at__lt=timezone.now() - timedelta(seconds=behind)
    ).acount()
    verdict: Check = {"ok": since is not None and since <= behind and not overdue}
    verdict |= {"since_seconds": since, "overdue_matches": overdue}
    if since is None:
        verdict["error"] = "the sweep has not run"
    elif since > behind:
        verdict["error"] = f"the sweep last ran {since:.0f} s ago"
    elif overdue:
        verdict["error"] = f"{overdue} running matches are overdue by more than {behind:g} s"
    return verdict
