"""``manage.py serve``: the whole site in one Daphne process.

In the embedded mode (no ``REDIS_URL``) it first starts the in-process Celery
worker and Celery beat, so bot turns, timers and the sweep run without Redis or a
separate worker. With ``REDIS_URL`` it serves only; run ``celery -A config worker -B``
(or a worker and ``celery -A config beat``) beside it.
"""

from daphne.cli import CommandLineInterface
from django.conf import settings
from django.core.management.base import BaseCommand

from config.embedded_worker import start_embedded_beat, start_embedded_worker


class Command(BaseCommand):
    help = "Serve the site with Daphne (and, embedded, an in-process Celery worker)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, host: str, port: int, **options) -> None:
        if settings.EMBEDDED:
            start_embedded_worker()
            start_embedded_beat()
        self.stdout.write(f"Serving on http://{host}:{port}/")
        CommandLineInterface().run(["--bind", host, "--port", str(port), "config.asgi:application"])
