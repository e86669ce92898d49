"""What the open data publishes and what is there to download: reads only."""

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import zstandard
from django.db.models import QuerySet

from gameplay.models import Match
from history.records import open_matches
from tables.models import Game

from .models import Dump


def month_start(month: date) -> datetime:
    """The first moment of ``month`` (any day of it), UTC: the files' months are UTC months."""
    return datetime(month.year, month.month, 1, tzinfo=UTC)


def next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def month_matches(game: str, month: date) -> QuerySet[Match]:
    """The open matches of ``game`` that finished in ``month`` (UTC)."""
    return open_matches().filter(
        game=game, finished_at__gte=month_start(month), finished_at__lt=month_start(next_month(month))
    )


@dataclass
class GameFiles:
    game: str
    label: str
    dumps: list[Dump]


def files_by_game() -> list[GameFiles]:
    """Every file built, newest month first, game by game (a game with none listed empty)."""
    built = list(Dump.objects.filter(built_at__isnull=False).order_by("-month"))
    return [GameFiles(game, str(label), [d for d in built if d.game == game]) for game, label in Game.choices]


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a file, line by line through zstd, never the whole file in memory."""
    with open(path, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as plain:
        for text in io.TextIOWrapper(plain, encoding="utf-8"):
            yield json.loads(text)
