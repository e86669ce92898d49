"""Benchmark the notifications: how long a thousand people take to be told, by web push and by email,
of a tournament starting, through the whole real path.

``manage.py notifybench --people 1000`` (on a database of its own, with Redis) makes that many people,
each with a confirmed address and one browser subscribed, and starts beside them a push service of its
own (an HTTP server that takes each push, as a browser's push service would) and an SMTP server
(aiosmtpd), and a Celery worker in a process of its own (threads, four at once, as production's).
Then it keeps one site notice for each person, as a tournament starting does: each one's receiver asks
the worker to decide, the worker puts a push and an email in the outbox and sends them. It prints the
time until the last push and the last email arrived, the rate, and each notice's wait from its commit to
its push's and its email's arrival (median, 95th percentile, most).
"""

import logging
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser
from django.db import connection, transaction
from django.utils import timezone

from bench.guard import WritingBenchmark, bench_username
from config.celery import app
from notifications.management.commands.vapidkeys import _base64url, new_pair
from notifications.models import Delivery, Kind, Preference, PushSubscription, Way
from social.models import Notice
from social.services import shared as social_shared

WORKER_THREADS = 4
"""As the production worker runs (Procfile: ``--pool threads --concurrency 4``)."""


class Arrivals:
    """When each person's push and email arrived, by the person's number (the push's path and the mail's
    recipient name it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pushes: dict[int, float] = {}
        self.emails: dict[int, float] = {}

    def note(self, into: dict[int, float], person: int) -> None:
        with self.lock:
            into.setdefault(person, time.perf_counter())


class Command(WritingBenchmark):
    help = "Benchmark the notifications: a thousand people told by push and email, through the real path."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--people", type=int, default=1000)
        parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for every arrival")

    def handle(self, *args, **options) -> None:
        if settings.EMBEDDED:
            raise CommandError("notifybench needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).")
        count = options["people"]
        logging.getLogger("mail.log").setLevel(logging.WARNING)  # a line per message would bury the numbers
        arrivals = Arrivals()
        with _push_service(arrivals) as push_url, _smtp_server(arrivals) as smtp_port:
            people = _people(count, push_url)
            with _worker(smtp_port):
                committed = _tell(people)
                started = min(committed.values())
                _wait(arrivals, count, options["timeout"])
        self._report(count, started, committed, arrivals)

    def _report(self, count: int, started: float, committed: dict[int, float], arrivals: Arrivals) -> None:
        last_push, last_email = max(arrivals.pushes.values()), max(arrivals.emails.values())
        self.stdout.write(f"{count} people told of a tournament starting, by push and by email:")
        for way, last, arrived in (
            ("push", last_push, arrivals.pushes),
            ("email", last_email, arrivals.emails),
        ):
            waits = sorted(arrived[person] - committed[person] for person in arrived)
            took = last - started
            self.stdout.write(
                f"  {way:<5} all {len(arrived)} in {took:.2f} s ({len(arrived) / took:.0f}/s); "
                f"wait from the notice's commit: p50 {_at(waits, 50):.2f} s, p95 {_at(waits, 95):.2f} s, "
                f"most {waits[-1]:.2f} s"
            )
        sent = Delivery.objects.filter(
            user__username__startswith=bench_username("notify"), sent_at__isnull=False
        )
        self.stdout.write(
            f"  outbox: {sent.filter(way=Way.PUSH).count()} pushes and {sent.filter(way=Way.EMAIL).count()} "
            f"emails sent, {Delivery.objects.filter(sent_at__isnull=True).count()} unsent"
        )


def _at(ordered: list[float], percent: int) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * percent / 100))]


@contextmanager
def _push_service(arrivals: Arrivals) -> Iterator[str]:
    """A push service of our own: each POST to /<person's number> taken (201), as a browser's would."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            arrivals.note(arrivals.pushes, int(self.path.strip("/")))
            self.send_response(201)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@contextmanager
def _smtp_server(arrivals: Arrivals) -> Iterator[int]:
    """An SMTP server (aiosmtpd) taking every message; the recipient's address says whose it is."""
    from aiosmtpd.controller import Controller

    class Handler:
        async def handle_DATA(self, server, session, envelope) -> str:
            for recipient in envelope.rcpt_tos:
                arrivals.note(
                    arrivals.emails, int(recipient.split("@")[0].removeprefix(bench_username("notify")))
                )
            return "250 OK"

    with socket.socket() as probe:  # aiosmtpd wants a port of its own choosing, not 0
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


def _people(count: int, push_url: str) -> list:
    """``count`` people in order (the n-th's push goes to /n, their address is bench-notify<n>@...), each
    with a confirmed address, a browser subscribed and push and email on for a tournament starting; their
    earlier runs' outbox and notices emptied, so each run sends anew."""
    User = get_user_model()
    names = [bench_username(f"notify{index}") for index in range(count)]
    now = timezone.now()
    User.objects.bulk_create(
        [User(username=name, email=f"{name}@bench.invalid", email_confirmed_at=now) for name in names],
        ignore_conflicts=True,
    )
    by_name = User.objects.in_bulk(names, field_name="username")
    people = [by_name[name] for name in names]
    browser_key = ec.generate_private_key(ec.SECP256R1()).public_key()
    p256dh = _base64url(
        browser_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    auth = _base64url(b"benchmark-auth16")
    with transaction.atomic():
        Delivery.objects.filter(user__in=people).delete()
        Notice.objects.filter(recipient__in=people).delete()
        PushSubscription.objects.filter(user__in=people).delete()
        PushSubscription.objects.bulk_create(
            PushSubscription(user=person, endpoint=f"{push_url}/{index}", p256dh=p256dh, auth=auth)
            for index, person in enumerate(people)
        )
        Preference.objects.filter(user__in=people).delete()
        Preference.objects.bulk_create(
            Preference(user=person, ways={Kind.TOURNAMENT: [Way.PUSH, Way.EMAIL]}) for person in people
        )
    return people


def _tell(people: list) -> dict[int, float]:
    """One notice each, as a tournament starting keeps them, each in its own transaction; when each
    committed (the receivers then hand it to the worker)."""
    committed = {}
    for index, person in enumerate(people):
        with transaction.atomic():
            social_shared.notify(
                recipient_id=person.pk,
                kind=Notice.Kind.TOURNAMENT_STARTING,
                sender=None,
                subject="Benchmark arena",
                link="/tournaments/",
            )
        committed[index] = time.perf_counter()
    return committed


@contextmanager
def _worker(smtp_port: int) -> Iterator[None]:
    """A Celery worker as production runs it (threads, four at once), in a process of its own on this
    benchmark's database, broker and queue, mailing through our SMTP server; with the site's VAPID pair,
    or one of the benchmark's own when the site has none. Stopped, by its process id, at the end."""
    public, private = settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY
    if not (public and private):
        public, private = new_pair()
    env = {
        **os.environ,
        "MAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": str(smtp_port),
        "SMTP_TLS": "0",
        "VAPID_PUBLIC_KEY": public,
        "VAPID_PRIVATE_KEY": private,
        "CELERY_QUEUE": app.conf.task_default_queue,
        "DATABASE_URL": _database_url(),
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "threads"]
    command += ["--concurrency", str(WORKER_THREADS), "-Q", app.conf.task_default_queue, "-l", "INFO"]
    with tempfile.TemporaryFile("w+") as log:
        worker = subprocess.Popen(
            command, cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 60
            while " ready." not in _read(log):
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise CommandError(f"The benchmark's worker did not start:\n{_read(log)[-2000:]}")
                time.sleep(0.2)
            yield
        finally:
            worker.terminate()
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


def _database_url() -> str:
    """The database this process uses, as a URL (a test's own database under pytest)."""
    db = connection.settings_dict
    login = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return f"postgres://{login}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _read(log) -> str:
    log.seek(0)
    return log.read()


def _wait(arrivals: Arrivals, count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while len(arrivals.pushes) < count or len(arrivals.emails) < count:
        if time.monotonic() > deadline:
            raise CommandError(
                f"after {timeout:.0f} s only {len(arrivals.pushes)} pushes and {len(arrivals.emails)} "
                f"emails of {count} arrived"
            )
        time.sleep(0.05)
