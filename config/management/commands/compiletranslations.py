"""``manage.py compiletranslations``: .po to .mo without GNU gettext.

Django's ``compilemessages`` needs the gettext tools installed; this compiles
with the pure-Python polib so ``make run`` works on a machine that has only
Python. Only catalogues whose .mo is missing or older than the .po are built.
"""

from pathlib import Path

import polib
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile translation catalogues (.po) whose .mo is missing or out of date."

    def handle(self, *args, **options) -> None:
        compiled = 0
        for locale_dir in map(Path, settings.LOCALE_PATHS):
            for po_path in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
                mo_path = po_path.with_suffix(".mo")
                if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                    continue
                polib.pofile(str(po_path)).save_as_mofile(str(mo_path))
                compiled += 1
                self.stdout.write(f"compiled {po_path.relative_to(settings.BASE_DIR)}")
        self.stdout.write(f"{compiled} catalogue(s) compiled.")
