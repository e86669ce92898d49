"""The practice page, its service worker and the web app manifest, and the one door back to the
server: saving a finished match to history.

The page is served once online; from then on its service worker answers it from the device, and the
match runs in a Web Worker (``static/js/practice-worker.js``) with Pyodide and the bundle
``manage.py buildpractice`` makes. Nothing of a practice match reaches the server unless the player
saves it to their history.
"""

import hashlib
import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import get_template, render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.csp import CSP
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csp import csp_override
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_POST

from accounts.services import client_address

from . import bundle, uploads
from .forms import PracticeForm

PAGE_FILES = (
    "css/site.css",
    "vendor/htmx/htmx.min.js",
    "vendor/htmx/hx-ws.js",
    "js/table.js",
    "js/table-story.js",
    "js/table-connection.js",
    "js/practice-records.js",
    "js/practice.js",
    "js/practice-worker.js",
    "icons/icon-192.png",
    "icons/icon-512.png",
)
PRACTICE_CSP = {
    **settings.SECURE_CSP,
    "script-src": [*settings.SECURE_CSP["script-src"], CSP.WASM_UNSAFE_EVAL],
    "worker-src": [CSP.SELF, "blob:"],
}
"""Only the practice page may compile WebAssembly and start a worker (from its script as the page
fetched it, hence ``blob:``)."""


def _size(path: str) -> int:
    found = finders.find(path)
    if not found:
        raise FileNotFoundError(f"The static file {path} is missing (run manage.py buildpractice?).")
    return Path(found).stat().st_size


@dataclass(frozen=True)
class Offline:
    """What the practice needs on the device, read once per process: every file (URL and size), the
    version naming that set (a deploy that changes any of them gives a new one, and the service
    worker a new cache), where Pyodide lives, and the bundle the files include."""

    files: list[dict]
    version: str
    pyodide: str
    bundle: str
    bundle_version: str

    @property
    def cache(self) -> str:
        return f"practice-{self.version}"


@cache
def offline() -> Offline:
    note = bundle.current()
    if note is None:
        raise FileNotFoundError("The practice bundle is not built: run `manage.py buildpractice`.")
    pyodide = f"{settings.STATIC_URL}{bundle.PYODIDE}".replace("//", "/")
    bundle_url = static(f"practice/{note['file']}")
    files = [{"url": static(path), "bytes": _size(path)} for path in PAGE_FILES]
    files += [
        {"url": f"{pyodide}{name}", "bytes": _size(bundle.PYODIDE + name)} for name in bundle.PYODIDE_FILES
    ]
    files.append({"url": bundle_url, "bytes": note["bytes"]})
    worker_source = get_template("practice/sw.js").template.source
    version = hashlib.sha256(json.dumps([files, worker_source]).encode()).hexdigest()[:12]
    return Offline(files, version, pyodide, bundle_url, note["version"])


@never_cache
@ensure_csrf_cookie
@csp_override(PRACTICE_CSP)
def play(request: HttpRequest) -> HttpResponse:
    """The practice page, with nobody in it whoever asks: its service worker keeps it on the device,
    which may be shared, and shows it offline to whoever comes next. Who is logged in, the page asks
    ``me``."""
    practice = offline()
    page = reverse("practice:play")
    config = {
        "version": practice.version,
        "cache": practice.cache,
        "page": page,
        "files": [{"url": page, "bytes": 0}, *practice.files],
        "serviceWorker": reverse("practice:service_worker"),
        "worker": static("js/practice-worker.js"),
        "pyodide": practice.pyodide,
        "bundle": practice.bundle,
        "bundleVersion": practice.bundle_version,
        "languageCode": settings.LANGUAGE_CODE,
        "languages": [[code, str(name)] for code, name in settings.LANGUAGES],
        "guest": _("Guest"),
        "me": reverse("practice:me"),
        "save": reverse("practice:save"),
        "pace": {
            "bot": list(settings.BOT_PAUSE_SECONDS),
            "fast_bot": list(settings.FAST_BOT_PAUSE_SECONDS),
            "round": settings.ROUND_PAUSE_SECONDS,
        },
    }
    return render(request, "practice/play.html", {"form": PracticeForm(), "config": config})


@never_cache
def me(request: HttpRequest) -> JsonResponse:
    """Who is logged in (their id and name, or null) and the top bar's account links as the site's
    other pages show them: what the practice page, kept on the device with nobody in it, asks
    whenever it is online. Never kept, by the browser or the service worker."""
    user = request.user
    person = {"id": user.pk, "name": user.get_username()} if user.is_authenticated else None
    account = render_to_string("base.html#account", request=request)
    return JsonResponse({"person": person, "account": account})


def service_worker(request: HttpRequest) -> HttpResponse:
    """Answers the practice page and its files from the device; a new version replaces the old cache."""
    practice = offline()
    response = render(
        request,
        "practice/sw.js",
        {  # as JSON, which is JavaScript
            "cache": json.dumps(practice.cache),
            "page": json.dumps(reverse("practice:play")),
            "files": json.dumps([file["url"] for file in practice.files]),
        },
        content_type="text/javascript",
    )
    response["Cache-Control"] = "no-cache"
    return response


def manifest(request: HttpRequest) -> JsonResponse:
    """What a phone needs to put the site on its home screen, opening on the practice table. The app is
    the whole site (its scope): on an iPhone, web push works only in a page of the installed app, and
    the notifications settings page is where it is turned on."""
    data = {
        "name": _("Șeptică"),
        "short_name": _("Șeptică"),
        "description": _(
            "Șeptică Americană and classic Șeptică: practice against bots, even with no connection."
        ),
        "start_url": reverse("practice:play"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#0f5132",
        "theme_color": "#0f5132",
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
        ],
    }
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


def _refuse(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@require_POST
def save(request: HttpRequest) -> JsonResponse:
    """Save a practice match played offline (JSON, see ``uploads.PracticeUpload``) once the engine has
    replayed it to its end: 201 with its history page's URL, 200 with it when saved before, 400 with
    what is wrong, 403 for a visitor not logged in, 429 (and when to try again) for a person who sent
    too many."""
    if not request.user.is_authenticated:
        return _refuse(_("Log in to save a practice match to your history."), status=403)
    try:
        announced = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        announced = 0
    most = settings.PRACTICE_UPLOAD_MAX_BYTES
    if announced > most or len(request.body) > most:
        return _refuse(_("The upload is too big: at most %(count)d bytes.") % {"count": most})
    try:
        match, created = uploads.practice_record(
            user=request.user, upload=request.body, address=client_address(request)
        )
    except uploads.PracticeThrottled as error:
        response = _refuse(str(error), status=429)
        response["Retry-After"] = str(math.ceil(error.wait))
        return response
    except uploads.PracticeRefused as error:
        return _refuse(str(error))
    return JsonResponse({"url": reverse("history:match", args=[match.pk])}, status=201 if created else 200)
