"""The one router every v1 endpoint registers on: ninja serves a path from one router only, and reads
and acts share paths (``GET`` and ``POST /tables``)."""

import json
from collections.abc import AsyncGenerator, AsyncIterator

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, StreamingHttpResponse
from ninja import Router

from ..door import Caller

router = Router()


def caller(request: HttpRequest) -> Caller:
    """Who the door let in (``Door`` sets it as the request's ``auth``)."""
    return request.auth  # type: ignore[attr-defined]


JSON_LINES = "application/jsonl"


def json_lines(items: AsyncGenerator[dict]) -> StreamingHttpResponse:
    """A stream of JSON lines, begun once the endpoint has checked and spent what it must: a refusal
    raised inside a stream would come after its ``200``. Closing the stream closes ``items`` (what it
    holds goes with it); a reader gone away cancels it where it waits."""

    async def lines() -> AsyncIterator[str]:
        try:
            async for item in items:
                yield json.dumps(item, cls=DjangoJSONEncoder, ensure_ascii=False) + "\n"
        finally:
            await items.aclose()

    response = StreamingHttpResponse(lines(), content_type=JSON_LINES)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx passes each line on as it comes
    return response


def streams(description: str) -> dict:
    """The OpenAPI words for an endpoint answering with JSON lines (ninja describes JSON only)."""
    return {
        "responses": {
            200: {"description": description, "content": {JSON_LINES: {"schema": {"type": "object"}}}}
        }
    }
