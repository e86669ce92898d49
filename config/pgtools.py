"""PostgreSQL's own client programs, for ``manage.py backup`` and ``restore``: where they are, which
database they talk to, and running them so that their complaint reaches the operator."""

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import dj_database_url
import psycopg
from django.conf import settings
from django.core.management.base import CommandError

DEBIAN_BIN_DIRS = "/usr/lib/postgresql"
"""Debian and Ubuntu install each major version's programs in ``<this>/<version>/bin``."""
SQLITE_REFUSAL = "Backups need PostgreSQL; the embedded SQLite file can be copied while the site is stopped."


@dataclass(frozen=True)
class Database:
    """Where a PostgreSQL database is and who logs in: what the client programs are told."""

    name: str
    host: str = ""
    port: str = ""
    user: str = ""
    password: str = ""
    sslmode: str = ""

    @classmethod
    def from_settings(cls, settings_dict: dict) -> "Database":
        """The database a Django ``DATABASES`` entry names; refuses SQLite."""
        if settings_dict["ENGINE"] != "django.db.backends.postgresql":
            raise CommandError(SQLITE_REFUSAL)
        return cls(
            name=settings_dict["NAME"],
            host=settings_dict.get("HOST") or "",
            port=str(settings_dict.get("PORT") or ""),
            user=settings_dict.get("USER") or "",
            password=settings_dict.get("PASSWORD") or "",
            sslmode=(settings_dict.get("OPTIONS") or {}).get("sslmode", ""),
        )

    @classmethod
    def from_url(cls, url: str) -> "Database":
        return cls.from_settings(dj_database_url.parse(url))

    @classmethod
    def site(cls) -> "Database":
        """The site's own database (``DATABASE_URL``)."""
        return cls.from_settings(settings.DATABASES["default"])

    def __str__(self) -> str:
        return f"{self.name} on {self.host or 'localhost'}:{self.port or 5432}"

    def arguments(self) -> list[str]:
        """Host, port and user as the client programs take them (the database name is the caller's)."""
        given = {"--host": self.host, "--port": self.port, "--username": self.user}
        return [f"{option}={value}" for option, value in given.items() if value]

    def environment(self) -> dict[str, str]:
        """The client programs' environment: the password never on their command line, seen by ``ps``."""
        env = {**os.environ, "PGPASSWORD": self.password} if self.password else dict(os.environ)
        if self.sslmode:
            env["PGSSLMODE"] = self.sslmode
        return env

    def connect(self, name: str | None = None) -> psycopg.Connection:
        """A plain connection (autocommit) to this database, or to ``name`` on the same server."""
        return psycopg.connect(
            dbname=name or self.name,
            host=self.host or None,
            port=self.port or None,
            user=self.user or None,
            password=self.password or None,
            sslmode=self.sslmode or None,
            autocommit=True,
        )


def _version(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path.parent.parent.name)) or (0,)


def find_program(name: str) -> Path:
    """``name`` (pg_dump, pg_restore) from ``PG_BIN_DIR`` when set; else the newest Debian install
    (a client older than the server refuses to dump it); else the PATH."""
    bin_dir = os.environ.get("PG_BIN_DIR")
    if bin_dir:
        found = Path(bin_dir) / name
        if not os.access(found, os.X_OK):
            raise CommandError(f"PG_BIN_DIR is {bin_dir}, but there is no {name} there.")
        return found
    installed = sorted(Path(DEBIAN_BIN_DIRS).glob(f"*/bin/{name}"), key=_version)
    if installed:
        return installed[-1]
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    raise CommandError(
        f"{name} was not found on the PATH or under {DEBIAN_BIN_DIRS}/*/bin. Install PostgreSQL's client "
        "programs (Debian and Ubuntu: apt-get install postgresql-client), or set PG_BIN_DIR to the "
        f"directory holding {name}."
    )


def run(program: Path, arguments: list[str], database: Database) -> None:
    """Run a client program against ``database``; its own words on stderr when it fails."""
    done = subprocess.run(
        [str(program), *arguments],
        env=database.environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        said = done.stderr.strip() or done.stdout.strip() or "(it said nothing)"
        raise CommandError(f"{program.name} failed with exit code {done.returncode}:\n{said}")


def size_text(size: int) -> str:
    """A file's size for a person: 512 B, 3.4 kB, 12.0 MB."""
    value, unit = float(size), "B"
    for bigger in ("kB", "MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, bigger
    return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
