"""The Python the practice table runs in the browser, zipped from the installed code.

The zip holds the very modules the server runs (the engine, the bots, the presenters, the frame
writer, the practice runtime), the table's templates, the compiled translations, and Django with
only what its template engine and translations need (no admin, no database backends' extras, no
other languages). Its name carries a hash of its content, so a browser's cache of it never goes
stale, and it is rebuilt from the code, never kept in git (``manage.py buildpractice``).
"""

import gzip
import hashlib
import io
import json
import os
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import asgiref
import django
from django.conf import settings
from django.contrib.staticfiles import finders

PYODIDE = "vendor/pyodide-314.0.7/"
"""Pyodide's files keep their own names (it loads its parts relative to this folder)."""
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
WORTH_COMPRESSING = 0.9
"""A gzip copy is kept only when it is at most this share of the file (the bundle, a zip, is not)."""

OWN_FILES = (
    "gameplay/__init__.py",
    "gameplay/frames.py",
    "gameplay/cardfaces.py",
    "gameplay/engine/*.py",
    "gameplay/games/*.py",
    "gameplay/templatetags/__init__.py",
    "gameplay/templatetags/cards.py",
    "bots/__init__.py",
    "bots/policies/*.py",
    "bots/turn.py",
    "bots/review.py",
    "practice/__init__.py",
    "practice/offline.py",
    "templates/gameplay/*.html",
    "templates/includes/bot_badge.html",
    "config/locale/*/LC_MESSAGES/django.mo",
)
DJANGO_LEFT_OUT = (
    "contrib",
    "test",
    "db/backends/postgresql",
    "db/backends/mysql",
    "db/backends/oracle",
    "db/backends/sqlite3",
    "core/management/commands",
    "conf/app_template",
)
"""Django's parts a template engine with no apps and no database never imports."""
FIXED_TIME = (2026, 1, 1, 0, 0, 0)
"""Every entry's timestamp, so the same code always makes the same zip (and the same hash)."""


def build_dir() -> Path:
    return Path(settings.PRACTICE_BUILD_DIR)


def _languages() -> set[str]:
    return {code.replace("-", "_") for code, _name in settings.LANGUAGES}


def _django_files() -> Iterator[tuple[str, Path]]:
    root = Path(django.__file__).parent
    languages = _languages()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if not path.is_file() or "__pycache__" in relative or path.suffix == ".pyc":
            continue
        if any(relative == part or relative.startswith(part + "/") for part in DJANGO_LEFT_OUT):
            continue
        parts = relative.split("/")
        if "locale" in parts:
            language = parts[parts.index("locale") + 1]
            if language not in languages and not language.startswith("__init__"):
                continue
        yield f"django/{relative}", path


def _asgiref_files() -> Iterator[tuple[str, Path]]:
    root = Path(asgiref.__file__).parent
    for path in sorted(root.glob("*.py")):
        yield f"asgiref/{path.name}", path


def _own_files() -> Iterator[tuple[str, Path]]:
    base = Path(settings.BASE_DIR)
    for pattern in OWN_FILES:
        matches = sorted(base.glob(pattern))
        if not matches:
            raise FileNotFoundError(f"Nothing matches {pattern} (are the translations compiled?).")
        for path in matches:
            relative = path.relative_to(base).as_posix()
            # The templates and catalogues sit at the zip's top, where the runtime looks for them.
            relative = relative.removeprefix("config/")
            yield relative, path


def zip_bytes() -> bytes:
    """The bundle's bytes: the same for the same code."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, path in [*_own_files(), *_django_files(), *_asgiref_files()]:
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes(), compresslevel=9)
    return buffer.getvalue()


def build() -> dict:
    """Write the bundle under its content hash and the note naming it; returns the note."""
    data = zip_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    target = build_dir()
    target.mkdir(parents=True, exist_ok=True)
    name = f"python-{digest}.zip"
    for old in [*target.glob("python-*.zip"), *target.glob("python-*.zip.gz")]:
        if not old.name.startswith(name):
            old.unlink(missing_ok=True)  # another build of the same tree may have been first
    note = {"file": name, "bytes": len(data), "version": digest}
    _replace(target / name, data)
    _replace(target / "bundle.json", json.dumps(note).encode())
    return note


def _replace(path: Path, data: bytes) -> None:
    """``path`` holding ``data``, put in place whole: a server serving the file meanwhile (or another
    build of the same bundle) reads the old one or the new one, never half of either."""
    part = path.with_name(f".{path.name}.{os.getpid()}")
    part.write_bytes(data)
    part.replace(path)


def current() -> dict | None:
    """The note of the bundle built last (file, bytes, version), or None before any build."""
    try:
        return json.loads((build_dir() / "bundle.json").read_text())
    except FileNotFoundError:
        return None


def precompress() -> int:
    """Beside each of Pyodide's files and the bundle, a gzip copy (``<name>.gz``, made again when the
    file is newer) where it is worth it: ServeStatic, serving the source folders in the embedded run,
    sends it as it is to a browser that takes gzip, as nginx sends collectstatic's copies in the
    production shape. Returns the bytes the copies hold."""
    note = current()
    paths = [Path(finders.find(PYODIDE + name)) for name in PYODIDE_FILES]
    paths += [build_dir() / note["file"]] if note else []
    kept = 0
    for path in paths:
        copy = path.with_name(f"{path.name}.gz")
        if not copy.exists() or copy.stat().st_mtime < path.stat().st_mtime:
            partial = copy.with_name(f".{copy.name}.partial")
            with path.open("rb") as source, gzip.GzipFile(partial, "wb", compresslevel=9, mtime=0) as target:
                shutil.copyfileobj(source, target)
            if partial.stat().st_size > WORTH_COMPRESSING * path.stat().st_size:
                partial.unlink()
                copy.unlink(missing_ok=True)
                continue
            partial.replace(copy)
        kept += copy.stat().st_size
    return kept
