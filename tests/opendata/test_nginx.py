"""Production's nginx serves the open data files from their directory itself (the configuration
``manage.py prod`` writes, run by a real nginx), with their types; what is not a file there is not
passed on to the site."""

import http.client

import pytest

from tests.ops.test_nginx_conf import nginx, upstream  # noqa: F401 (fixtures)

NAME = "septica-classic-2026-11.jsonl.zst"


def fetch(listen: str, path: str) -> tuple[int, str, bytes]:
    host, port = listen.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


@pytest.fixture
def files(settings, tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    settings.OPEN_DATA_ROOT = root
    (root / NAME).write_bytes(b"\x28\xb5\x2f\xfd zstd frame")
    (root / f"{NAME}.sha256").write_text(f"{'0' * 64}  {NAME}\n")
    return root


def test_nginx_serves_the_files_with_their_types(nginx, files):  # noqa: F811
    site = nginx()
    assert fetch(site, f"/data/files/{NAME}") == (200, "application/zstd", (files / NAME).read_bytes())
    status, kind, body = fetch(site, f"/data/files/{NAME}.sha256")
    assert (status, kind, body.decode()) == (200, "text/plain; charset=utf-8", f"{'0' * 64}  {NAME}\n")
    assert fetch(site, "/data/files/septica-classic-2000-01.jsonl.zst")[0] == 404
