"""``manage.py restore <file>``: a dump made by ``manage.py backup`` put back, by PostgreSQL's own
``pg_restore``, into the site's database or the one ``--database-url`` names.

It is all or nothing (one transaction, stopping at the first error): a restore that fails leaves the
database as it was. Afterwards it counts the matches, moves and people the database now holds, and
checks that this code's migrations are all recorded there, so the operator sees it is whole.
"""

import time
from pathlib import Path

import psycopg
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.migrations.loader import MigrationLoader
from psycopg import sql

from config.pgtools import Database, find_program, run, size_text
from gameplay.models import Match, Move

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
