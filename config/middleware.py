"""Checks every request passes before any view, or the database, sees it."""

from collections.abc import Callable

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.urls import get_resolver, get_urlconf
from django.utils.log import log_response


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
