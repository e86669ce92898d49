"""``manage.py process web --port 8100`` / ``process worker`` / ``process reviewer`` / ``process proxy``:
one of the ``Procfile``'s processes in the foreground, for a service manager (``deploy/septica-*.service``).
The ``Procfile`` stays the one place that says how each process starts, for ``manage.py prod``,
systemd and the tests alike."""

import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config.management.commands.prod import NGINX
from config.procfile import command

KINDS = ("web", "worker", "reviewer", "proxy")


class Command(BaseCommand):
    help = "Run one process of the production shape (web or worker) as the Procfile starts it."

    def add_arguments(self, parser) -> None:
        parser.add_argument("kind", choices=KINDS)
        parser.add_argument("--port", type=int, default=8100, help="The Daphne's port (web).")
        parser.add_argument(
            "--host",
            default=os.environ.get("DAPHNE_HOST", "127.0.0.1"),
            help="The address Daphne listens on (web; default $DAPHNE_HOST or 127.0.0.1).",
        )
        parser.add_argument(
            "--run-dir",
            default=os.environ.get("RUN_DIR", ""),
            help="Where beat keeps its schedule file (worker; default $RUN_DIR).",
        )
        parser.add_argument(
            "--print", dest="print_only", action="store_true", help="Print the command line and stop."
        )

    def handle(self, *args, kind: str, port: int, host: str, run_dir: str, print_only: bool, **options):
        if kind in ("worker", "proxy") and not run_dir:
            raise CommandError(f"Name the {kind}'s run directory: --run-dir or RUN_DIR.")
        if kind == "proxy" and not (Path(run_dir) / "nginx.conf").exists():
            raise CommandError("Write nginx's configuration first: manage.py prod --proxy-conf-only.")
        if run_dir:
            Path(run_dir).mkdir(parents=True, exist_ok=True)
        level = os.environ.get("WORKER_LOG_LEVEL", "WARNING")
        words = command(
            kind,
            PORT=str(port),
            DAPHNE_HOST=host,
            RUN_DIR=run_dir,
            WORKER_LOG_LEVEL=level,
            REVIEW_QUEUE=settings.CELERY_REVIEW_QUEUE,
            NGINX_BINARY=NGINX or "nginx",
        )
        if print_only:
            self.stdout.write(" ".join(words))
            return
        os.execvp(words[0], words)
