"""The nginx configuration ``manage.py prod`` writes, run by a real nginx in front of a small upstream
that answers with the address nginx handed on: whose X-Forwarded-For is believed (TRUSTED_PROXIES
only), that this machine is budgeted like any browser (but for the health check), and the dear doors'
own tighter budgets. No database: nginx and the template only."""

import http.client
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from config.management.commands.prod import MIME_TYPES, NGINX, nginx_conf
from tests.conftest import free_port
from tests.faults.play import wait_for


class Echo(BaseHTTPRequestHandler):
    """Answers every request with the X-Forwarded-For nginx sent (what Daphne takes as the client)."""

    def answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        said = (self.headers.get("X-Forwarded-For") or "").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(said)))
        self.end_headers()
        self.wfile.write(said)

    do_GET = do_POST = answer

    def log_message(self, *args) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def rendered(tmp_path: Path, upstream: str) -> tuple[str, Path]:
    """The configuration as ``manage.py prod`` writes it, listening on a free port; (address, file)."""
    mime_types = next((path for path in MIME_TYPES if Path(path).exists()), None)
    if not NGINX or not mime_types:
        pytest.skip("nginx is not installed (apt-get install nginx-light).")
    listen = f"127.0.0.1:{free_port()}"
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        nginx_conf(
            listen=listen,
            daphnes=[upstream],
            static_root=tmp_path / "static",
            run_dir=tmp_path,
            mime_types=mime_types,
        )
    )
    return listen, conf


@pytest.fixture
def nginx(tmp_path, upstream, settings):
    """Start nginx on the configuration rendered with the settings as the test left them."""
    started = []

    def start() -> str:
        listen, conf = rendered(tmp_path, upstream)
        process = subprocess.Popen([NGINX, "-c", str(conf)], stderr=subprocess.PIPE, start_new_session=True)
        started.append(process)
        wait_for(lambda: ask(listen, "GET", "/") is not None or process.poll() is not None, 10, "nginx up")
        assert process.poll() is None, process.stderr.read().decode()
        return listen

    yield start
    for process in started:
        process.terminate()
        process.wait(10)


def ask(listen: str, method: str, path: str, forwarded: str = "") -> tuple[int, str] | None:
    """(status, the address the upstream was given), or None while nobody listens."""
    host, port = listen.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(
            method,
            path,
            body=b"x" if method == "POST" else None,
            headers=({"X-Forwarded-For": forwarded} if forwarded else {}),
        )
        response = connection.getresponse()
        return response.status, response.read().decode()
    except ConnectionRefusedError:
        return None
    finally:
        connection.close()


def test_without_trusted_proxies_a_forged_header_is_not_believed(nginx, settings):
    settings.TRUSTED_PROXIES = []
    site = nginx()
    assert ask(site, "GET", "/lobby/", forwarded="198.51.100.7") == (200, "127.0.0.1")


def test_a_trusted_proxy_s_header_names_the_browser(nginx, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.0/8"]
    site = nginx()
    assert ask(site, "GET", "/", forwarded="198.51.100.7") == (200, "198.51.100.7")
    # The last address no trusted proxy added: one the browser put first is ignored.
    assert ask(site, "GET", "/", forwarded="203.0.113.1, 198.51.100.7") == (200, "198.51.100.7")


def test_this_machine_is_budgeted_like_anyone_but_for_the_health_check(nginx, settings):
    settings.TRUSTED_PROXIES = []
    site = nginx()
    health = [ask(site, "GET", "/health/ready")[0] for _ in range(60)]
    assert health == [200] * 60
    pages = [ask(site, "GET", "/lobby/")[0] for _ in range(150)]
    assert 429 in pages and pages[:90] == [200] * 90


@pytest.mark.parametrize(
    ("path", "burst"),
    [("/accounts/register/", 4), ("/practice/save/", 3), ("/accounts/close/", 3)],
)
def test_the_dear_doors_have_tighter_budgets_for_their_sending(nginx, settings, path, burst):
    settings.TRUSTED_PROXIES = []
    site = nginx()
    shown = [ask(site, "GET", path)[0] for _ in range(burst + 3)]
    assert shown == [200] * (burst + 3), "showing the form is a page request"
    sent = [ask(site, "POST", path)[0] for _ in range(burst + 2)]
    assert sent[: burst + 1] == [200] * (burst + 1) and sent[-1] == 429


def test_data_downloads_are_a_dear_door_and_the_data_page_is_not(nginx, settings):
    site = nginx()
    asked = [ask(site, "POST", "/accounts/data/prepare/")[0] for _ in range(7)]
    assert asked[:6] == [200] * 6 and asked[-1] == 429
    assert ask(site, "GET", "/accounts/data/")[0] == 200, "the data page itself is a page"


def test_a_download_shares_the_dear_budget(nginx, settings):
    site = nginx()
    fetched = [ask(site, "GET", "/accounts/data/12/download/")[0] for _ in range(7)]
    assert fetched[:6] == [200] * 6 and fetched[-1] == 429


def test_a_load_test_s_own_address_may_be_left_unbudgeted(nginx, settings):
    settings.UNLIMITED_ADDRESSES = ["127.0.0.1"]
    site = nginx()
    assert {ask(site, "POST", "/accounts/register/")[0] for _ in range(20)} == {200}


def test_anything_but_an_address_is_refused_before_it_reaches_nginx(tmp_path, upstream, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.1; include /etc/passwd"]
    with pytest.raises(CommandError, match="TRUSTED_PROXIES"):
        rendered(tmp_path, upstream)
