"""Checks every request passes before any view, or the database, sees it; its id and its metrics."""

import re
import time
import uuid
from collections.abc import Callable

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.urls import get_resolver, get_urlconf
from django.utils.log import log_response

from observe import logs, metrics


def _nul_in(request: HttpRequest) -> str | None:
    """Which part of the request carries a NUL character (the path, the query string, the cookies or
    a header), or None."""
    parts = {
        "path": [request.path],
        "query string": [text for key, values in request.GET.lists() for text in (key, *values)],
        "cookies": [*request.COOKIES.keys(), *request.COOKIES.values()],
    }
    for key, value in request.META.items():
        if key.startswith("HTTP_") and isinstance(value, str):
            parts[f"header {key.removeprefix('HTTP_')}"] = [value]
    return next((part for part, texts in parts.items() if any("\x00" in text for text in texts)), None)


class RejectNulMiddleware:
    """No honest link, query, cookie or header holds a NUL character, and PostgreSQL cannot store or
    compare one: refuse it with 400 here rather than let it become a database error (500) deep in a view
    (or in the login limit, which records the user agent).

    The refusal is answered here, not raised: Django logs a raised ``BadRequest`` with its whole
    traceback, and a scanner sending NULs would fill the log with them. One line says it all."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        part = _nul_in(request)
        if part is None:
            return self.get_response(request)
        refusal = BadRequest(f"NUL character in the {part}.")
        response = get_resolver(get_urlconf()).resolve_error_handler(400)(request, refusal)
        log_response("Bad request (%s): %s", str(refusal), request.path, response=response, request=request)
        return response


REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A request id taken as sent (nginx's ``$request_id``, a client's): a short, plain token."""


class RequestIdMiddleware:
    """Every request has an id, its proxy's when sane, else a new one: on the response's
    ``X-Request-ID`` and on every line logged while it is answered (``observe.logs``), Django's line
    for an error answer ("Not Found") included: it is logged here, in the request's context, rather
    than by Django's handler once the middleware has returned."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        with logs.context(request_id=request_id):
            response = self.get_response(request)
            if response.status_code >= 400:
                log_response(
                    "%s: %s", response.reason_phrase, request.path, response=response, request=request
                )
        response["X-Request-ID"] = request_id
        return response


def view_name(request: HttpRequest) -> str:
    """The view a request reached, by its URL's name (else its route), never the raw path: the
    metrics' labels stay few, whatever paths are asked for."""
    match = request.resolver_match
    if match is None:
        return "unmatched"
    return match.view_name or match.route


class RequestMetricsMiddleware:
    """Counts every request by view and status, and times it (``septica_http_*``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        view = view_name(request)
        metrics.REQUESTS.labels(view=view, status=str(response.status_code)).inc()
        metrics.REQUEST_SECONDS.labels(view=view).observe(time.perf_counter() - started)
        return response
