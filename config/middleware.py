"""Checks every request passes before any view, or the database, sees it."""

from collections.abc import Callable

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse


def _carries_nul(request: HttpRequest) -> bool:
    texts = [request.path, *request.COOKIES.keys(), *request.COOKIES.values()]
    texts += [
        value for key, value in request.META.items() if key.startswith("HTTP_") and isinstance(value, str)
    ]
    for key, values in request.GET.lists():
        texts += [key, *values]
    return any("\x00" in text for text in texts)


class RejectNulMiddleware:
    """No honest link, query, cookie or header holds a NUL character, and PostgreSQL cannot store or
    compare one: refuse it with 400 here rather than let it become a database error (500) deep in a view
    (or in the login limit, which records the user agent)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _carries_nul(request):
            raise BadRequest("NUL character in the path, query string, cookies or headers.")
        return self.get_response(request)
