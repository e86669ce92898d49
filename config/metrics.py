"""``/metrics``: the site's Prometheus metrics, for the operators' Prometheus, never the public.

What the processes note as they work is in ``observe.metrics``; what the database and the broker hold
(tables open, matches running, tasks queued) is read here, as Prometheus asks.
"""

import hmac
from collections.abc import Iterator

import redis
from django.conf import settings
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.core import GaugeMetricFamily, Metric

from config.celery import app
from config.holdings import held_here
from gameplay.models import Match
from observe.metrics import exposition
from tables.models import Table

LOOPBACK = {"127.0.0.1", "::1"}


class SiteCollector:
    """The counts Prometheus reads from the database and the broker at each scrape: the same from
    every process, so one Daphne or all may be scraped."""

    def collect(self) -> Iterator[Metric]:
        tables = GaugeMetricFamily(
            "septica_tables_open", "Tables not over, by game and status.", labels=["game", "status"]
        )
        for game, status, count in (
            Table.objects.filter(status__in=Table.NOT_OVER)
            .values_list("game", "status")
            .annotate(count=Count("pk"))
            .order_by()
        ):
            tables.add_metric([game, status], count)
        yield tables
        matches = GaugeMetricFamily(
            "septica_matches_running", "Matches being played, by game.", labels=["game"]
        )
        for game, count in (
            Match.objects.filter(status=Match.Status.PLAYING)
            .values_list("game")
            .annotate(count=Count("pk"))
            .order_by()
        ):
            matches.add_metric([game], count)
        yield matches
        queue = app.conf.task_default_queue
        queued = GaugeMetricFamily(
            "septica_tasks_queued", "Celery tasks waiting in the broker.", labels=["queue"]
        )
        queued.add_metric([queue], _queue_length(queue))
        yield queued


class HeldCollector:
    """What the process answering holds for its tables, matches, connections and people
    (``config.holdings``): its own counts, never the other processes' (in multiprocess mode too)."""

    def collect(self) -> Iterator[Metric]:
        held = GaugeMetricFamily(
            "septica_process_held",
            "Structures this process keeps per table, match, connection or person, by name.",
            labels=["what"],
        )
        for what, count in held_here().items():
            held.add_metric([what], count)
        yield held


def _queue_length(queue: str) -> int:
    """The tasks waiting in Redis for ``queue`` (the embedded mode's queue in memory counts none)."""
    if settings.EMBEDDED:
        return 0
    with redis.Redis.from_url(settings.REDIS_URL) as client:
        return client.llen(queue)


def allowed(request: HttpRequest) -> bool:
    """Straight from this machine (nginx, in front, always sets X-Forwarded-For), or with the token."""
    if request.META.get("REMOTE_ADDR") in LOOPBACK and "HTTP_X_FORWARDED_FOR" not in request.META:
        return True
    scheme, _space, token = request.headers.get("Authorization", "").partition(" ")
    return (
        bool(settings.METRICS_TOKEN)
        and scheme.lower() == "bearer"
        and hmac.compare_digest(token.encode(), settings.METRICS_TOKEN.encode())
    )


def metrics(request: HttpRequest) -> HttpResponse:
    """The metrics in Prometheus's text format; to anyone not allowed, no such page."""
    if not allowed(request):
        raise Http404
    return HttpResponse(
        exposition([SiteCollector(), HeldCollector()]),
        content_type=CONTENT_TYPE_LATEST,
        headers={"Cache-Control": "no-store"},
    )
