"""``manage.py prod``: the production shape on this machine, in the foreground.

nginx on ``--port`` in front of ``--daphnes`` Daphne processes (one per core by default), a Celery
worker with beat, all started by honcho from the ``Procfile``, against the PostgreSQL and Redis that
``DATABASE_URL`` and ``REDIS_URL`` name. It checks what it needs first and says what is missing; then
it migrates, collects the static files (hashed names, pre-compressed) and writes nginx's
configuration from ``deploy/nginx.conf.template`` into the run directory.
"""

import os
import secrets
import shutil
import sys
from pathlib import Path

import redis
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.utils import OperationalError

ROOT = Path(settings.BASE_DIR)
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
NGINX = shutil.which("nginx") or next((path for path in ("/usr/sbin/nginx",) if Path(path).exists()), None)
MIME_TYPES = (
    "/etc/nginx/mime.types",
    "/usr/local/etc/nginx/mime.types",
    "/opt/homebrew/etc/nginx/mime.types",
)


def nginx_conf(
    *, listen: str, daphne_ports: list[int], static_root: Path, run_dir: Path, mime_types: str
) -> str:
    """nginx's configuration for Daphne processes on ``daphne_ports`` of this machine."""
    servers = "\n".join(f"        server 127.0.0.1:{port};" for port in daphne_ports)
    filled = {
        "@LISTEN@": listen,
        "@SOCKET_SERVERS@": servers,
        "@PAGE_SERVERS@": servers,
        "@STATIC_ROOT@": str(static_root),
        "@RUN_DIR@": str(run_dir),
        "@MIME_TYPES@": mime_types,
        # Started by root (a container), nginx would hand its workers to "nobody", who cannot read a
        # checkout under a private home: keep them as the user who runs everything else here.
        "@USER@": "user root;" if os.geteuid() == 0 else "",
    }
    text = TEMPLATE.read_text()
    for mark, value in filled.items():
        text = text.replace(mark, value)
    return text


def missing_pieces() -> list[str]:
    """What the production shape needs and this machine lacks, in words a newcomer can act on."""
    missing = []
    if settings.EMBEDDED or connection.vendor != "postgresql":
        missing.append(
            "Set DATABASE_URL (PostgreSQL) and REDIS_URL: the production shape does not run embedded."
        )
    else:
        try:
            connection.ensure_connection()
        except OperationalError as error:
            missing.append(f"PostgreSQL is not reachable at DATABASE_URL: {error}".strip())
        try:
            redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping()
        except redis.RedisError as error:
            missing.append(f"Redis is not reachable at REDIS_URL: {error}")
    if not NGINX:
        missing.append("nginx is not installed (Debian: apt-get install nginx-light).")
    elif not any(Path(path).exists() for path in MIME_TYPES):
        missing.append("nginx's mime.types was not found (looked in " + ", ".join(MIME_TYPES) + ").")
    if not shutil.which(
        "honcho", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    ):
        missing.append("honcho is not installed (pip install -e . installs it).")
    return missing


class Command(BaseCommand):
    help = "Run nginx, Daphne processes and a Celery worker with beat: the production shape, here."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", type=int, default=8000, help="Where nginx listens (default 8000).")
        parser.add_argument("--host", default="127.0.0.1", help="The address nginx listens on.")
        parser.add_argument(
            "--daphnes",
            type=int,
            default=os.cpu_count() or 1,
            help="Daphne processes (default: one per core).",
        )
        parser.add_argument(
            "--base-port", type=int, default=8100, help="The first Daphne's port; the others follow it."
        )
        parser.add_argument(
            "--run-dir", default=str(ROOT / "run"), help="nginx's configuration, pid and temp files."
        )
        parser.add_argument("--check", action="store_true", help="Say what is missing and stop.")

    def handle(
        self, *args, port: int, host: str, daphnes: int, base_port: int, run_dir: str, check: bool, **options
    ):
        missing = missing_pieces()
        if missing:
            raise CommandError("The production shape cannot start:\n- " + "\n- ".join(missing))
        if check:
            self.stdout.write("Everything the production shape needs is here.")
            return
        run = Path(run_dir).resolve()
        run.mkdir(parents=True, exist_ok=True)
        env = self.environment(run, host)
        if settings.DEBUG:  # start again with DEBUG off, as every process of the shape runs
            os.execvpe(sys.executable, [sys.executable, *sys.argv], {**os.environ, **env})
        call_command("migrate", interactive=False, verbosity=0)
        call_command("compiletranslations", verbosity=0)
        call_command("buildpractice", verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        mime_types = next(path for path in MIME_TYPES if Path(path).exists())
        (run / "nginx.conf").write_text(
            nginx_conf(
                listen=f"{host}:{port}",
                daphne_ports=list(range(base_port, base_port + daphnes)),
                static_root=Path(settings.STATIC_ROOT),
                run_dir=run,
                mime_types=mime_types,
            )
        )
        self.stdout.write(
            f"The site: http://{host}:{port}/ (nginx, {daphnes} Daphne, 1 worker). Ctrl+C stops it."
        )
        sys.stdout.flush()
        honcho = [sys.executable, "-m", "honcho", "-f", str(ROOT / "Procfile"), "-d", str(ROOT)]
        start = ["start", "-p", str(base_port), "-c", f"web={daphnes},worker=1,proxy=1"]
        path = (
            f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # the Procfile's python
        )
        os.execvpe(
            sys.executable,
            [*honcho, *start],
            {**os.environ, "RUN_DIR": str(run), "PATH": path, "NGINX_BINARY": NGINX},
        )

    @staticmethod
    def environment(run: Path, host: str) -> dict[str, str]:
        """DEBUG off, and what DEBUG off needs that a local run does not have (overridable but DEBUG)."""
        secret = run / "secret_key"
        if not secret.exists():
            secret.write_text(secrets.token_urlsafe(50))
            secret.chmod(0o600)
        defaults = {
            "SECRET_KEY": secret.read_text().strip(),
            "ALLOWED_HOSTS": ",".join(dict.fromkeys([host, "127.0.0.1", "localhost"])),
            "SERVE_STATIC": "0",
            # Plain http on this machine; behind TLS set these to 1 and SECURE_PROXY_SSL_HEADER.
            "SECURE_SSL_REDIRECT": "0",
            "SECURE_COOKIES": "0",
        }
        return {name: os.environ.get(name, value) for name, value in defaults.items()} | {"DEBUG": "0"}
