"""The open data pages: the files to download (``/data/``), what a line holds (``/data/schema/``), and
the files themselves where no web server stands in front (production's nginx serves /data/files/
from the directory itself)."""

import re
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from history.records import RECORD_FORMAT

from . import selectors

FILE_NAME = re.compile(r"septica-[a-z]+-\d{4}-\d{2}\.jsonl\.zst(\.sha256)?")
"""What a file of the directory is called (anything else there, a build's part file, is not served)."""


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "opendata/index.html", {"games": selectors.files_by_game()})


@require_safe
def schema(request: HttpRequest) -> HttpResponse:
    return render(request, "opendata/schema.html", {"format": RECORD_FORMAT})


@require_safe
def download(request: HttpRequest, name: str) -> FileResponse:
    """A file as it is on disk, streamed: zstd, or its checksum as text."""
    found = FILE_NAME.fullmatch(name)
    path = Path(settings.OPEN_DATA_ROOT) / name
    if not found or not path.is_file():
        raise Http404
    kind = "text/plain; charset=utf-8" if found.group(1) else "application/zstd"
    return FileResponse(path.open("rb"), content_type=kind, as_attachment=not found.group(1), filename=name)
