"""``manage.py restore <file>``: a dump made by ``manage.py backup`` put back, by PostgreSQL's own
``pg_restore``, into the site's database or the one ``--database-url`` names.

It is all or nothing (one transaction, stopping at the first error): a restore that fails leaves the
database as it was. Afterwards it counts the matches, moves and people the database now holds, and
checks that this code's migrations are all recorded there, so the operator sees it is whole.

A backup is older than the accounts closed since: before restoring, it reads the ledger of erased
accounts (``privacy.ErasedAccount``) from the database it overwrites and from the site's own, and
afterwards erases each of them again in the restored database (``manage.py erasures``), so a restored
backup never brings a closed account back.
"""

import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import psycopg
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from psycopg import sql

from config.management.commands import erasures
from config.pgtools import Database, find_program, run, size_text
from gameplay.models import Match, Move
from privacy import services as privacy_services
from privacy.models import ErasedAccount

MAGIC = b"PGDMP"
"""How every pg_dump custom-format archive begins."""
MAINTENANCE_DB = "postgres"
"""The database connected to while creating another (``--create-db``)."""


def check_archive(path: Path) -> None:
    """Refuse anything but a pg_dump custom-format archive, before touching the database."""
    try:
        with path.open("rb") as file:
            start = file.read(len(MAGIC))
    except OSError as error:
        raise CommandError(f"Cannot read {path}: {error.strerror}.") from None
    if start != MAGIC:
        raise CommandError(
            f"{path} is not a pg_dump custom-format archive (it does not begin with {MAGIC.decode()}); "
            "restore reads the .dump files that manage.py backup writes."
        )


def create_if_missing(database: Database) -> bool:
    """Create the database unless it exists; whether it was created."""
    with database.connect(MAINTENANCE_DB) as connection:
        if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database.name]).fetchone():
            return False
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database.name)))
    return True


def holdings(database: Database) -> tuple[dict[str, int], int, int]:
    """(rows of matches, moves and people; this code's migrations missing there; migrations there
    this code does not know, as when a newer version made the dump)."""
    tables = {"matches": Match, "moves": Move, "users": get_user_model()}
    with database.connect() as connection:
        counts = {
            what: connection.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(model._meta.db_table))
            ).fetchone()[0]
            for what, model in tables.items()
        }
        recorded = set(connection.execute("SELECT app, name FROM django_migrations").fetchall())
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    return counts, len(known - recorded), len(recorded - known)


def ledger_of(database: Database) -> dict[int, datetime]:
    """The erased accounts ``database`` records; none when it has no ledger (a new database)."""
    query = sql.SQL("SELECT user_id, erased_at FROM {}").format(sql.Identifier(ErasedAccount._meta.db_table))
    try:
        with database.connect() as reading:
            return dict(reading.execute(query).fetchall())
    except psycopg.errors.UndefinedTable:
        return {}


def site_database() -> Database | None:
    try:
        return Database.site()
    except CommandError:  # the embedded SQLite database: no ledger a restore could read
        return None


class Command(BaseCommand):
    help = "Restore a dump made by manage.py backup into the site's database (or --database-url's)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="A septica-*.dump file.")
        parser.add_argument(
            "--database-url",
            default=None,
            help="The database to restore into (default: the site's own, DATABASE_URL).",
        )
        parser.add_argument(
            "--yes",
            "--noinput",
            "--no-input",
            dest="interactive",
            action="store_false",
            help="Do not ask for confirmation.",
        )
        parser.add_argument("--create-db", action="store_true", help="Create the database if it is missing.")

    def handle(
        self, *args, file: Path, database_url: str | None, interactive: bool, create_db: bool, **options
    ) -> None:
        check_archive(file)
        database = Database.from_url(database_url) if database_url else Database.site()
        pg_restore = find_program("pg_restore")
        if interactive and not self.confirmed(file, database):
            raise CommandError("Nothing was restored.")
        if create_db and create_if_missing(database):
            self.stdout.write(f"Created the database {database}.")
        site = site_database()
        ledger = self.ledger(database, site)
        started = time.monotonic()
        run(
            pg_restore,
            [
                "--clean",
                "--if-exists",
                "--no-owner",
                "--exit-on-error",
                "--single-transaction",
                *database.arguments(),
                f"--dbname={database.name}",
                str(file),
            ],
            database,
        )
        took = time.monotonic() - started
        self.stdout.write(
            f"Restored {file} ({size_text(file.stat().st_size)}) into {database} in {took:.1f} s."
        )
        self.report(database)
        self.erase_again(ledger, database_url if database != site else None)

    def ledger(self, database: Database, site: Database | None) -> dict[int, datetime]:
        """Every erasure recorded where the restore writes and, when that is another database, in the
        site's own (if it answers): the earliest time of each account."""
        try:
            ledger = ledger_of(database)
        except psycopg.Error as error:
            raise CommandError(f"Cannot read the erased accounts in {database}: {error}") from None
        if site is not None and site != database:
            try:
                ledger = ledger_of(site) | ledger
            except psycopg.Error as error:
                self.stderr.write(
                    f"The site's database {site} did not answer ({error}): only the erasures recorded in "
                    f"{database} are applied again."
                )
        return ledger

    def erase_again(self, ledger: dict[int, datetime], database_url: str | None) -> None:
        """Erase again, in the restored database, every closed account the backup brought back: here
        when it is the site's own, else by ``manage.py erasures`` run against it."""
        if not ledger:
            return
        given = json.dumps([[user_id, when.isoformat()] for user_id, when in ledger.items()])
        if database_url is None:
            connection.close()  # its tables were replaced
            ContentType.objects.clear_cache()
            erased = privacy_services.erasures_reapply(ledger=ledger)
            self.stdout.write(erasures.said(erased, ledger))
            return
        done = subprocess.run(
            [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "erasures"],
            input=given,
            env={**os.environ, "DATABASE_URL": database_url},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            raise CommandError(f"Restored, but the closed accounts were not erased again: {done.stderr}")
        self.stdout.write(done.stdout.strip())

    def confirmed(self, file: Path, database: Database) -> bool:
        answer = input(
            f"Every table in {file.name} is dropped in {database} and replaced by the backup's rows. "
            "Stop the site first if this is its own database.\nType 'yes' to restore: "
        )
        return answer.strip().lower() == "yes"

    def report(self, database: Database) -> None:
        try:
            counts, missing, unknown = holdings(database)
        except psycopg.Error as error:
            raise CommandError(f"The restored database cannot be read as the site's: {error}") from None
        self.stdout.write(
            f"It holds {counts['matches']} matches, {counts['moves']} moves and {counts['users']} users."
        )
        if missing:
            self.stdout.write(
                f"{missing} of this code's migrations are not applied there: run manage.py migrate on it."
            )
        if unknown:
            self.stdout.write(
                f"It records {unknown} migrations this code does not have: a newer version made the dump."
            )
        if not missing and not unknown:
            self.stdout.write("Its migrations are exactly this code's.")
