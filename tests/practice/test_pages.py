"""The practice page, its service worker and manifest, as the server sends them."""

import json

import pytest
from django.contrib.staticfiles import finders

from practice import bundle

pytestmark = pytest.mark.django_db


def config_of(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="practice-config" type="application/json">') + len(
        '<script id="practice-config" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_only_the_practice_page_may_compile_webassembly_and_start_a_worker(client):
    practice = client.get("/practice/")
    assert practice.status_code == 200
    policy = practice.headers["Content-Security-Policy"]
    assert "'wasm-unsafe-eval'" in policy and "worker-src 'self' blob:" in policy
    for elsewhere in ("/", "/accounts/login/", "/practice/manifest.webmanifest"):
        policy = client.get(elsewhere).headers.get("Content-Security-Policy", "")
        assert "wasm" not in policy and "worker-src" not in policy


def test_the_page_names_every_file_the_practice_needs_under_one_versioned_cache(client):
    config = config_of(client.get("/practice/", HTTP_ACCEPT_LANGUAGE="ro"))
    urls = [file["url"] for file in config["files"]]
    note = bundle.current()
    assert f"/static/practice/{note['file']}" in urls
    assert config["bundleVersion"] == note["version"]
    assert any(url.endswith("pyodide.asm.wasm") for url in urls)
    assert config["page"] == "/practice/" and config["cache"] == f"practice-{config['version']}"
    assert sum(file["bytes"] for file in config["files"]) > 10_000_000
    assert config["guest"] == "Invitat" and config["me"] == "/practice/me/"

    worker = client.get("/practice/sw.js")
    assert worker.headers["Content-Type"].startswith("text/javascript")
    assert worker.headers["Cache-Control"] == "no-cache"
    script = worker.content.decode()
    assert f'const CACHE = "{config["cache"]}"' in script
    assert all(f'"{url}"' in script for url in urls if url != "/practice/")


def test_the_manifest_makes_the_site_installable_and_opens_on_practice(client):
    response = client.get("/practice/manifest.webmanifest")
    assert response.headers["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["start_url"] == "/practice/" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert finders.find(icon["src"].removeprefix("/static/")), icon["src"]
