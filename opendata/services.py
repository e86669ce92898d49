"""Building the open data files: one per game and month (UTC), every open match of it as a JSON line
(``history.records``), compressed with zstd as it is written, so a build holds one chunk of matches in
memory however big the month. The file is written beside its final name and renamed over it, so a
download gets the old file or the new, never half of one; its SHA-256 is counted on the way and
written beside it. One build at a time per file: a build asked for while one runs is done once more
after it (a closed account's name the running build may already have read).

The same way from the monthly beat, ``manage.py opendata``, the admin and a closing account."""

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

import zstandard
from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models.functions import TruncMonth
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import limits
from history.records import open_matches, public_records
from tables.models import Game

from . import selectors
from .models import Dump

BUILD = "opendata.tasks.build"
"""Queued by name, so the services need not import the task layer (as privacy's do)."""
BUILD_LOST_AFTER = timedelta(hours=6)
"""A build still marked running after this long died with its worker: another may start."""
LEVEL = 10
"""zstd's level: a third smaller than its default (3) for about 3 s more per 100 MB of lines (measured
on a month of classic matches); the file is built once a month and downloaded many times."""
ASKED_PER_HOUR = 12
"""Builds one moderator may ask for from the admin in an hour (each reads a whole month)."""


class OpenDataError(Exception):
    """A request refused; the text is for the moderator."""


def file_name(game: str, month: date) -> str:
    return f"septica-{game}-{month:%Y-%m}.jsonl.zst"


def month_of(text: str) -> date:
    """``YYYY-MM`` as the month's first day; ``ValueError`` for anything else."""
    return datetime.strptime(text, "%Y-%m").date()


def last_month(now: datetime | None = None) -> date:
    """The month (UTC) before the one ``now`` is in."""
    today = (now or timezone.now()).astimezone(UTC).date()
    return (today.replace(day=1) - timedelta(days=1)).replace(day=1)


def line(record: dict[str, Any]) -> bytes:
    """A record as one line of the file: compact UTF-8 JSON and a newline."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


class _Counted:
    """A file written through: the bytes counted and hashed on their way to the disk."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw, self.sha256, self.size = raw, hashlib.sha256(), 0

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        self.size += len(data)
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()


def _claim(game: str, month: date) -> Dump | None:
    """The month's row, marked as being built by this call; None when another build runs (marked to
    go round once more instead)."""
    with transaction.atomic():
        dump, _created = Dump.objects.select_for_update().get_or_create(game=game, month=month)
        now = timezone.now()
        if dump.building_since and dump.building_since > now - BUILD_LOST_AFTER:
            dump.wanted_again = True
            dump.save(update_fields=["wanted_again"])
            return None
        dump.building_since, dump.wanted_again = now, False
        dump.save(update_fields=["building_since", "wanted_again"])
        return dump


def _wanted_again(dump: Dump) -> bool:
    """True (the claim kept) when a build was asked for while this one ran; else the claim let go."""
    with transaction.atomic():
        locked = Dump.objects.select_for_update().get(pk=dump.pk)
        if locked.wanted_again:
            locked.wanted_again = False
            locked.save(update_fields=["wanted_again"])
            return True
        locked.building_since = None
        locked.save(update_fields=["building_since"])
        return False


def _replace[T](root: Path, name: str, write: Callable[[BinaryIO], T]) -> T:
    """``write(file)`` into a new file beside ``root / name``, then renamed over it (readable by all:
    the web server serves it). What ``write`` returns."""
    handle, part = tempfile.mkstemp(dir=root, prefix=f".{name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as raw:
            written = write(raw)
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(part, 0o644)
        os.replace(part, root / name)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise
    return written


def _compressed(dump: Dump, raw: BinaryIO) -> tuple[int, _Counted]:
    """The month's records written to ``raw`` through zstd: how many, and the bytes written."""
    out = _Counted(raw)
    matches = 0
    with zstandard.ZstdCompressor(level=LEVEL).stream_writer(out, closefd=False) as writer:
        for record in public_records(selectors.month_matches(dump.game, dump.month)):
            writer.write(line(record))
            matches += 1
    return matches, out


def _write(dump: Dump) -> None:
    """Write the month's file and its checksum, then record them on ``dump``."""
    started = time.perf_counter()
    root = Path(settings.OPEN_DATA_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    name = file_name(dump.game, dump.month)
    matches, out = _replace(root, name, lambda raw: _compressed(dump, raw))
    digest = out.sha256.hexdigest()
    _replace(root, f"{name}.sha256", lambda raw: raw.write(f"{digest}  {name}\n".encode()))
    Dump.objects.filter(pk=dump.pk).update(
        file_name=name,
        matches=matches,
        size=out.size,
        sha256=digest,
        built_at=timezone.now(),
        build_seconds=time.perf_counter() - started,
    )


def build(*, game: str, month: date) -> Dump | None:
    """Build ``game``'s file of ``month`` now; None when a build of it is already running (which then
    builds it once more as soon as it is done)."""
    if game not in Game.values:
        raise ValueError(f"Unknown game {game!r}.")
    dump = _claim(game, month)
    if dump is None:
        return None
    try:
        _write(dump)
        while _wanted_again(dump):
            _write(dump)
    except BaseException:
        Dump.objects.filter(pk=dump.pk).update(building_since=None)
        raise
    dump.refresh_from_db()
    return dump


def monthly(now: datetime | None = None) -> list[Dump]:
    """Beat's job on the 1st: last month's file of each game that had open matches (or a file)."""
    month = last_month(now)
    built = []
    for game in Game.values:
        had = Dump.objects.filter(game=game, month=month).exists()
        if (had or selectors.month_matches(game, month).exists()) and (dump := build(game=game, month=month)):
            built.append(dump)
    return built


def _queue(game: str, month: date) -> None:
    transaction.on_commit(lambda: current_app.send_task(BUILD, args=[game, f"{month:%Y-%m}"]))


def build_asked(*, months: list[tuple[str, date]], by) -> None:
    """A moderator asks for files ((game, month) each) to be built again by the worker: a few an hour
    each, as each reads a whole month."""
    budget = limits.Budget.per(f"opendata-build:{by.pk}", ASKED_PER_HOUR, 3600)
    if limits.spend_all(budget, cost=len(months)):
        raise OpenDataError(_("Too many builds asked for. Please wait a while and try again."))
    for game, month in months:
        _queue(game, month)


def person_forget(*, user_id: int) -> int:
    """A closed account's name leaves the files: every file that holds one of their matches is built
    again (queued, once the erasure commits). How many."""
    played = (
        open_matches()
        .filter(participants__user_id=user_id)
        .annotate(month=TruncMonth("finished_at", tzinfo=UTC))
        .values_list("game", "month")
        .distinct()
    )
    months = {(game, month.date()) for game, month in played}
    built = Dump.objects.filter(game__in={game for game, _month in months})
    queued = [(dump.game, dump.month) for dump in built if (dump.game, dump.month) in months]
    for game, month in queued:
        _queue(game, month)
    return len(queued)
