"""``manage.py backup``: the site's PostgreSQL database, dumped by PostgreSQL's own ``pg_dump`` into
one custom-format archive (``manage.py restore`` reads it), and the oldest dumps beyond ``--keep``
deleted.

pg_dump reads the whole database in one snapshot, so a backup taken while matches are played holds
each match exactly as one committed move left it. The archive is written under a temporary name and
only renamed to ``septica-<UTC time>.dump`` once pg_dump has succeeded: a killed or failed backup
never leaves a file that looks whole. systemd runs it daily (``deploy/septica-backup.timer``).
"""

import os
import re
import time
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.pgtools import Database, find_program, run, size_text

DUMP_NAME = re.compile(r"septica-\d{8}T\d{6}Z\.dump")
"""The site's dump files, and the only files retention ever deletes."""
PARTIAL_NAME = re.compile(r"\.septica-\d{8}T\d{6}Z\.dump\.partial")
"""A dump being written; one a day old was left by a backup killed outright, and is deleted."""
STALE_PARTIAL_SECONDS = 24 * 3600


def dumps(directory: Path) -> list[Path]:
    """The site's dump files in ``directory``, newest first (the UTC time in the name sorts)."""
    return sorted(
        (path for path in directory.iterdir() if DUMP_NAME.fullmatch(path.name) and path.is_file()),
        reverse=True,
    )


def stale_partials(directory: Path) -> list[Path]:
    """Dumps left half-written by a backup killed outright (no other backup runs for a day)."""
    cutoff = time.time() - STALE_PARTIAL_SECONDS
    return [
        path
        for path in directory.iterdir()
        if PARTIAL_NAME.fullmatch(path.name) and path.is_file() and path.stat().st_mtime < cutoff
    ]


def dump(database: Database, directory: Path) -> Path:
    """pg_dump's archive of ``database`` in ``directory``, readable by its owner only."""
    pg_dump = find_program("pg_dump")
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    name = f"septica-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.dump"
    partial = directory / f".{name}.partial"
    # Created here with its mode, so the dump is never readable by others, not even for a moment.
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        run(
            pg_dump,
            ["--format=custom", f"--file={partial}", *database.arguments(), f"--dbname={database.name}"],
            database,
        )
        with partial.open("rb") as written:
            os.fsync(written.fileno())
        final = directory / name
        os.link(partial, final)  # unlike a rename, refuses to replace a dump made in the same second
    except FileExistsError:
        raise CommandError(f"{final} exists already: a backup was made this very second.") from None
    finally:
        partial.unlink(missing_ok=True)
    directory_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(directory_fd)  # the new name survives a power cut
    finally:
        os.close(directory_fd)
    return final


class Command(BaseCommand):
    help = "Back up the site's PostgreSQL database with pg_dump, keeping the newest --keep dumps."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dir",
            dest="directory",
            type=Path,
            default=None,
            help="Where the dumps go (default: the BACKUP_DIR setting).",
        )
        parser.add_argument(
            "--keep",
            type=int,
            default=None,
            help="How many of the newest dumps to keep (default: the BACKUP_KEEP setting).",
        )

    def handle(self, *args, directory: Path | None, keep: int | None, **options) -> None:
        keep = settings.BACKUP_KEEP if keep is None else keep
        if keep < 1:
            raise CommandError("--keep must be at least 1: the backup just made is always kept.")
        directory = (directory or Path(settings.BACKUP_DIR)).resolve()
        database = Database.site()
        started = time.monotonic()
        final = dump(database, directory)
        took = time.monotonic() - started
        self.stdout.write(
            f"Backed up {database} to {final} ({size_text(final.stat().st_size)}) in {took:.1f} s."
        )
        for old in dumps(directory)[keep:]:
            old.unlink()
            self.stdout.write(f"Deleted the old backup {old.name} (keeping the newest {keep}).")
        for partial in stale_partials(directory):
            partial.unlink()
            self.stdout.write(f"Deleted {partial.name}, left half-written by a backup that was killed.")
