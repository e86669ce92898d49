"""``manage.py vapidkeys``: a new VAPID key pair for web push, as the settings lines to paste into the
site's environment (``/etc/septica/env``); with ``--embedded``, the embedded default's own pair, made
once into ``EMBEDDED_VAPID_FILE`` and kept (``make run`` asks for it on every start).

The pair is the site's identity to the browsers' push services: every subscription is bound to the
public key it was made with, so a new pair silently ends every subscription there is. Make it once."""

import base64
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


def _base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_pair() -> tuple[str, str]:
    """A P-256 key pair: the public key as the browsers' ``applicationServerKey`` wants it (the
    uncompressed point, base64url) and the private key as pywebpush reads it (the raw 32-byte scalar,
    base64url)."""
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    private = key.private_numbers().private_value.to_bytes(32, "big")
    return _base64url(public), _base64url(private)


def settings_lines(subject: str) -> str:
    public, private = new_pair()
    return f"VAPID_PUBLIC_KEY={public}\nVAPID_PRIVATE_KEY={private}\nVAPID_SUBJECT={subject}\n"


class Command(BaseCommand):
    help = "Make a VAPID key pair for web push and print it as settings lines for the environment."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--subject",
            default=settings.VAPID_SUBJECT,
            help="Who the push services may write to about the site's pushes: mailto:you@example.com "
            "or an https:// address (default: VAPID_SUBJECT).",
        )
        parser.add_argument(
            "--embedded",
            action="store_true",
            help="Keep a pair for the embedded default in EMBEDDED_VAPID_FILE: made if missing, else left "
            "as it is.",
        )

    def handle(self, *args, subject: str, embedded: bool, **options) -> None:
        if not subject.startswith(("mailto:", "https://")):
            raise CommandError("The subject is a mailto: or https:// address.")
        if not embedded:
            self.stdout.write(settings_lines(subject), ending="")
            return
        path = Path(settings.EMBEDDED_VAPID_FILE)
        if path.exists():
            return
        path.touch(mode=0o600)  # readable by the site's user only, before the private key is in it
        path.write_text(settings_lines(subject))
        self.stdout.write(f"Made the embedded default's web push keys: {path}")
