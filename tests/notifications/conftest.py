"""What the notifications' tests share: the site's VAPID keys, a browser's push subscription with its
own key pair (as a browser makes one), and a local HTTP server standing in for the push service that
decrypts each message with that browser's keys, as the browser would."""

import base64
import json
import os
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.cache import cache

from notifications.models import PushSubscription
from tests.factories import make_user


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture(autouse=True)
def full_budgets():
    """Every test starts with full budgets (they live in the shared cache, keyed by the person's id)."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def vapid(settings):
    """The site's VAPID key pair, made for the test."""
    key = ec.generate_private_key(ec.SECP256R1())
    settings.VAPID_PRIVATE_KEY = b64url(key.private_numbers().private_value.to_bytes(32, "big"))
    settings.VAPID_PUBLIC_KEY = b64url(
        key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )
    settings.VAPID_SUBJECT = "mailto:admin@example.com"
    return settings


@dataclass
class Received:
    """One message the push service took: its headers and the payload, decrypted."""

    path: str
    headers: dict[str, str]
    payload: dict


@dataclass
class PushService:
    """The stand-in push service: each subscription's endpoint is a path on it. It answers ``status``
    (201: taken; 404 or 410: the subscription is gone), or never answers while ``hang`` is set."""

    port: int
    keys: dict[str, tuple[ec.EllipticCurvePrivateKey, bytes]] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    status: int = 201
    hang: threading.Event | None = None
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def subscribe(self, user, name: str = "") -> PushSubscription:
        """A browser of ``user`` subscribing: its own ECDH key pair and auth secret, the public half sent
        to the site, the private half kept here to read what arrives."""
        private = ec.generate_private_key(ec.SECP256R1())
        auth = os.urandom(16)
        path = f"/push/{user.pk}-{name or len(self.keys)}"
        self.keys[path] = (private, auth)
        public = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return PushSubscription.objects.create(
            user=user,
            endpoint=f"http://127.0.0.1:{self.port}{path}",
            p256dh=b64url(public),
            auth=b64url(auth),
        )

    def take(self, path: str, headers: dict[str, str], body: bytes) -> None:
        private, auth = self.keys[path]
        plain = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
        with self.arrived:
            self.received.append(Received(path, headers, json.loads(plain)))
            self.arrived.notify_all()

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        with self.arrived:
            arrived = self.arrived.wait_for(lambda: len(self.received) >= count, timeout)
        assert arrived, f"{len(self.received)} of {count} pushes arrived within {timeout} s"
        return self.received[:count]


@pytest.fixture
def push_service(vapid):
    """The stand-in push service on a free port of this machine, for the test."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    service = PushService(server.server_address[1])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if service.hang is not None:
                service.hang.wait(30)
                return
            if service.status < 300:
                service.take(self.path, {name.lower(): value for name, value in self.headers.items()}, body)
            self.send_response(service.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server.RequestHandlerClass = Handler
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield service
    if service.hang is not None:
        service.hang.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def smtp(settings, mailbox):
    """The site's mail goes out through the test's SMTP server."""
    settings.MAILERS = mailbox.mailer()
    return mailbox


@pytest.fixture
def mara(db):
    return make_user("mara")
