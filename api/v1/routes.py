"""The one router every v1 endpoint registers on: ninja serves a path from one router only, and reads
and acts share paths (``GET`` and ``POST /tables``)."""

from django.http import HttpRequest
from ninja import Router

from ..door import Caller

router = Router()


def caller(request: HttpRequest) -> Caller:
    """Who the door let in (``Door`` sets it as the request's ``auth``)."""
    return request.auth  # type: ignore[attr-defined]
