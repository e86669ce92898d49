"""Log lines as JSON, each carrying what it is about: the request, the table, the match.

The request middleware, the table's socket, ``gameplay.services.act`` and the Celery tasks that take a
match note those in context variables (``context``, ``bind``); ``JsonFormatter`` writes them on every
line logged meanwhile, so one match can be followed across the servers and the worker by its id.
"""

import contextvars
import functools
import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

FIELDS = ("request_id", "table_id", "match_id")
"""What a line may be about, when it is known."""

_VARS: dict[str, contextvars.ContextVar[Any]] = {
    name: contextvars.ContextVar(f"log_{name}", default=None) for name in FIELDS
}


def current() -> dict[str, Any]:
    """The context known here, its unknown fields left out."""
    return {name: value for name, var in _VARS.items() if (value := var.get()) is not None}


def bind(**fields: Any) -> None:
    """Note ``fields`` (None: unknown) for the rest of this task or thread: a websocket's own task, a
    Celery task's run."""
    for name, value in fields.items():
        _VARS[name].set(value)


@contextmanager
def context(**fields: Any) -> Iterator[None]:
    """Note ``fields`` for the lines logged inside the block; the previous ones hold again after it."""
    tokens = [(_VARS[name], _VARS[name].set(value)) for name, value in fields.items()]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def from_keywords[**P, R](*names: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Run the decorated function in the ``context`` of its keyword arguments ``names`` (``match_id``):
    the lines its commit hooks log as well, when it is the outermost of an atomic decorator."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with context(**{name: kwargs[name] for name in names if name in kwargs}):
                return function(*args, **kwargs)

        return wrapper

    return decorate


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (ISO 8601, UTC), level, logger, message, process id, the context
    known (``current``) and, with an exception, its traceback as ``exc_info``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process or os.getpid(),
            **current(),
        }
        if record.exc_info:
            line["exc_info"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exc_info"] = record.exc_text
        if record.stack_info:
            line["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)
