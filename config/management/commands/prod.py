"""``manage.py prod``: the production shape on this machine, in the foreground.

nginx on ``--port`` in front of ``--daphnes`` Daphne processes (one per core by default), a Celery
worker with beat and a reviewer (the reviews' own worker), all started by honcho from the ``Procfile``,
against the PostgreSQL and Redis that ``DATABASE_URL`` and ``REDIS_URL`` name. It checks what it needs
first and says what is missing; then it migrates, collects the static files (hashed names,
pre-compressed) and writes nginx's configuration from ``deploy/nginx.conf.template`` into the run
directory. It stays in front of honcho
and says when the site is ready (``/health/ready`` answers 200), and why not while it waits.

For more than one host: ``--upstream`` adds Daphne processes of other hosts to this nginx's upstreams,
``--daphne-host`` has this host's Daphnes listen where another host's nginx reaches them, and
``--no-proxy`` starts no nginx here (README, "A second host").
"""

import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import redis
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.utils import OperationalError

ROOT = Path(settings.BASE_DIR)
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
NGINX = shutil.which("nginx") or next((path for path in ("/usr/sbin/nginx",) if Path(path).exists()), None)
MIME_TYPES = (
    "/etc/nginx/mime.types",
    "/usr/local/etc/nginx/mime.types",
    "/opt/homebrew/etc/nginx/mime.types",
)


READY_WAIT_SECONDS = 120
SERVER_FAILS = "max_fails=1 fail_timeout=5s"
"""A Daphne that refuses or drops a connection is set aside for 5 s (nginx tries the next at once)."""


def networks(setting: str) -> list[str]:
    """The addresses or networks a setting lists, each checked, so nothing else reaches nginx's text."""
    try:
        return [str(ipaddress.ip_network(given, strict=False)) for given in getattr(settings, setting)]
    except ValueError as error:
        raise CommandError(f"{setting}: {error}") from None


def real_ip(proxies: list[str]) -> str:
    """The realip module's lines: trust ``proxies``' X-Forwarded-For, and only theirs."""
    if not proxies:
        return "    # No TRUSTED_PROXIES: the connection's own address is the browser's."
    trusted = "".join(f"    set_real_ip_from {proxy};\n" for proxy in proxies)
    return trusted + "    real_ip_header X-Forwarded-For;\n    real_ip_recursive on;"


def nginx_conf(*, listen: str, daphnes: list[str], static_root: Path, run_dir: Path, mime_types: str) -> str:
    """nginx's configuration for the Daphne processes at ``daphnes`` (``host:port``, of any host), with
    the settings' ``TRUSTED_PROXIES`` and ``UNLIMITED_ADDRESSES``."""
    servers = "\n".join(f"        server {address} {SERVER_FAILS};" for address in daphnes)
    proxies = networks("TRUSTED_PROXIES")
    filled = {
        "@REAL_IP@": real_ip(proxies),
        "@UNLIMITED@": "\n".join(f"        {address} 1;" for address in networks("UNLIMITED_ADDRESSES")),
        "@HEALTH_ASKERS@": "\n".join(f"        {proxy} 1;" for proxy in proxies),
        "@LISTEN@": listen,
        "@SOCKET_SERVERS@": servers,
        "@PAGE_SERVERS@": servers,
        "@STATIC_ROOT@": str(static_root),
        "@OPEN_DATA_ROOT@": str(settings.OPEN_DATA_ROOT),
        "@RUN_DIR@": str(run_dir),
        "@MIME_TYPES@": mime_types,
        # Started by root, nginx would hand its workers to "nobody", who cannot read a checkout under a
        # private home: keep them as NGINX_USER (the site's own user, under systemd), else root.
        "@USER@": f"user {os.environ.get('NGINX_USER', 'root')};" if os.geteuid() == 0 else "",
    }
    text = TEMPLATE.read_text()
    for mark, value in filled.items():
        text = text.replace(mark, value)
    return text


def missing_pieces() -> list[str]:
    """What the production shape needs and this machine lacks, in words a newcomer can act on."""
    missing = []
    if settings.EMBEDDED or connection.vendor != "postgresql":
        missing.append(
            "Set DATABASE_URL (PostgreSQL) and REDIS_URL: the production shape does not run embedded."
        )
    else:
        try:
            connection.ensure_connection()
        except OperationalError as error:
            missing.append(f"PostgreSQL is not reachable at DATABASE_URL: {error}".strip())
        try:
            redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping()
        except redis.RedisError as error:
            missing.append(f"Redis is not reachable at REDIS_URL: {error}")
    if not NGINX:
        missing.append("nginx is not installed (Debian: apt-get install nginx-light).")
    elif not any(Path(path).exists() for path in MIME_TYPES):
        missing.append("nginx's mime.types was not found (looked in " + ", ".join(MIME_TYPES) + ").")
    if not shutil.which(
        "honcho", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    ):
        missing.append("honcho is not installed (pip install -e . installs it).")
    return missing


def listening(address: str) -> bool:
    """Whether something accepts connections at ``host:port``."""
    host, _colon, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
    except OSError:
        return False
    return True


def unready_checks(body: bytes) -> str:
    """The failing checks of a ``/health/ready`` answer, in a line."""
    try:
        checks = json.loads(body)["checks"]
    except (ValueError, KeyError, TypeError):
        return body[:200].decode(errors="replace")
    return "; ".join(
        f"{name}: {check.get('error', '?')}" for name, check in checks.items() if not check["ok"]
    )


class Command(BaseCommand):
    help = "Run nginx, Daphnes, a Celery worker with beat and a reviewer: the production shape, here."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", type=int, default=8000, help="Where nginx listens (default 8000).")
        parser.add_argument("--host", default="127.0.0.1", help="The address nginx listens on.")
        parser.add_argument(
            "--daphnes",
            type=int,
            default=os.cpu_count() or 1,
            help="Daphne processes (default: one per core).",
        )
        parser.add_argument(
            "--base-port", type=int, default=8100, help="The first Daphne's port; the others follow it."
        )
        parser.add_argument(
            "--run-dir", default=str(ROOT / "run"), help="nginx's configuration, pid and temp files."
        )
        parser.add_argument(
            "--daphne-host",
            default="127.0.0.1",
            help="The address this host's Daphnes listen on (a private one where another host's nginx "
            "sends to them).",
        )
        parser.add_argument(
            "--upstream",
            action="append",
            default=[],
            metavar="HOST:PORT",
            help="A Daphne of another host for this nginx to send to as well (repeat for each).",
        )
        parser.add_argument(
            "--no-proxy", action="store_true", help="No nginx here: another host's nginx sends to this one."
        )
        parser.add_argument("--no-worker", action="store_true", help="No Celery worker nor reviewer here.")
        parser.add_argument(
            "--proxy-conf-only",
            action="store_true",
            help="Write nginx's configuration into the run directory, collect the static files, and stop "
            "(for deploy/septica-proxy.service).",
        )
        parser.add_argument("--check", action="store_true", help="Say what is missing and stop.")

    def handle(
        self,
        *args,
        port: int,
        host: str,
        daphnes: int,
        base_port: int,
        run_dir: str,
        daphne_host: str,
        upstream: list[str],
        no_proxy: bool,
        no_worker: bool,
        proxy_conf_only: bool,
        check: bool,
        **options,
    ):
        missing = missing_pieces()
        if missing:
            raise CommandError("The production shape cannot start:\n- " + "\n- ".join(missing))
        if check:
            self.stdout.write("Everything the production shape needs is here.")
            return
        run = Path(run_dir).resolve()
        run.mkdir(parents=True, exist_ok=True)
        env = self.environment(run, host)
        if settings.DEBUG:  # start again with DEBUG off, as every process of the shape runs
            os.execvpe(sys.executable, [sys.executable, *sys.argv], {**os.environ, **env})
        call_command("migrate", interactive=False, verbosity=0)
        call_command("compiletranslations", verbosity=0)
        call_command("buildpractice", verbosity=0)
        # The embedded run's gzip copies beside the sources are not collected: the storage makes its own.
        call_command("collectstatic", interactive=False, verbosity=0, ignore_patterns=["*.gz"])
        ports = range(base_port, base_port + daphnes)
        reach = "127.0.0.1" if daphne_host in ("0.0.0.0", "::") else daphne_host
        local = [f"{reach}:{daphne}" for daphne in ports]
        if not no_proxy:
            if not local + upstream:
                raise CommandError("nginx needs a Daphne to send to: --daphnes 1 or more, or --upstream.")
            mime_types = next(path for path in MIME_TYPES if Path(path).exists())
            (run / "nginx.conf").write_text(
                nginx_conf(
                    listen=f"{host}:{port}",
                    daphnes=local + upstream,
                    static_root=Path(settings.STATIC_ROOT),
                    run_dir=run,
                    mime_types=mime_types,
                )
            )
        if proxy_conf_only:
            self.stdout.write(f"Wrote {run / 'nginx.conf'} ({len(local + upstream)} Daphne).")
            return
        front = (local or [None])[0] if no_proxy else f"{host}:{port}"
        workers = 0 if no_worker else 1
        counts = {"web": daphnes, "worker": workers, "reviewer": workers, "proxy": 0 if no_proxy else 1}
        what = ", ".join(f"{n} {kind}" for kind, n in counts.items())
        elsewhere = f", and {len(upstream)} Daphne elsewhere" if upstream else ""
        where = f"http://{front}/" if front else "the worker"
        self.stdout.write(f"Starting {where} ({what}{elsewhere}). Ctrl+C stops it.")
        sys.stdout.flush()
        honcho = [sys.executable, "-m", "honcho", "-f", str(ROOT / "Procfile"), "-d", str(ROOT)]
        start = ["start", "-p", str(base_port), "-c", ",".join(f"{k}={n}" for k, n in counts.items())]
        path = (
            f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # the Procfile's python
        )
        # Every process of this host writes its metrics here, and any Daphne's /metrics reports them
        # all; what a run before left (its dead processes' counts) is emptied first.
        metrics = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or run / "metrics")
        shutil.rmtree(metrics, ignore_errors=True)
        metrics.mkdir(parents=True)
        shape_env = {
            **os.environ,
            "RUN_DIR": str(run),
            "PATH": path,
            "NGINX_BINARY": NGINX,
            "DAPHNE_HOST": daphne_host,
            "WORKER_LOG_LEVEL": os.environ.get("WORKER_LOG_LEVEL", "WARNING"),
            "REVIEW_QUEUE": settings.CELERY_REVIEW_QUEUE,
            "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        }
        processes = subprocess.Popen([*honcho, *start], env=shape_env)
        for sig in (signal.SIGINT, signal.SIGTERM):  # stopping this command stops them all, warmly
            signal.signal(sig, lambda number, frame: processes.send_signal(signal.SIGTERM))
        if front:  # a host with a worker alone has no page to ask
            self.wait_ready(f"http://{front}/health/ready", processes, local)
        sys.exit(processes.wait())

    def wait_ready(self, url: str, processes: subprocess.Popen, daphnes: list[str]) -> None:
        """Say when the site answers ready, or what it still waits for after a while. It asks only once
        this host's Daphnes listen: nginx sets aside for a while a server that refused it."""
        deadline = time.monotonic() + READY_WAIT_SECONDS
        verdict = "no answer"
        while processes.poll() is None and not all(map(listening, daphnes)):
            time.sleep(0.2)
        while processes.poll() is None:
            try:
                with urllib.request.urlopen(url, timeout=5):
                    self.stdout.write(f"The site is ready: {url}")
                    sys.stdout.flush()
                    return
            except urllib.error.HTTPError as error:
                verdict = unready_checks(error.read())
            except (OSError, ValueError) as error:
                verdict = str(error)
            if time.monotonic() > deadline:
                self.stderr.write(f"Not ready after {READY_WAIT_SECONDS} s ({verdict}); still trying.")
                return
            time.sleep(0.5)

    @staticmethod
    def environment(run: Path, host: str) -> dict[str, str]:
        """DEBUG off, and what DEBUG off needs that a local run does not have (overridable but DEBUG)."""
        secret = run / "secret_key"
        if not secret.exists():
            secret.write_text(secrets.token_urlsafe(50))
            secret.chmod(0o600)
        defaults = {
            "SECRET_KEY": secret.read_text().strip(),
            "ALLOWED_HOSTS": ",".join(dict.fromkeys([host, "127.0.0.1", "localhost"])),
            "SERVE_STATIC": "0",
            # Plain http on this machine; behind TLS set these to 1 and SECURE_PROXY_SSL_HEADER.
            "SECURE_SSL_REDIRECT": "0",
            "SECURE_COOKIES": "0",
        }
        return {name: os.environ.get(name, value) for name, value in defaults.items()} | {"DEBUG": "0"}
