"""``manage.py buildpractice``: the Python the offline practice table runs in the browser."""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from practice import bundle


class Command(BaseCommand):
    help = "Zip the engine, bots, presenters, templates and translations for the offline practice table."

    def handle(self, *args, **options) -> None:
        call_command("compiletranslations", verbosity=0)
        note = bundle.build()
        self.stdout.write(f"practice/{note['file']}: {note['bytes'] / 1e6:.1f} MB")
        if settings.DEBUG:  # served from the source folders: the copies a browser is sent compressed
            self.stdout.write(
                f"gzip copies for the practice's first visit: {bundle.precompress() / 1e6:.1f} MB"
            )
