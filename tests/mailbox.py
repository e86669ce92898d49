"""A real SMTP server for the tests (aiosmtpd, on this machine): the site's mail goes out through
Django's SMTP backend, as in production, and the tests read what arrived."""

import email
import email.policy
import re
import threading
from email.message import EmailMessage

from aiosmtpd.controller import Controller


class Mailbox:
    """What an SMTP server received, in order, and a wait for more."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.messages: list[EmailMessage] = []
        self._arrived = threading.Condition()
        self._controller = Controller(self, hostname="127.0.0.1", port=port)

    async def handle_DATA(self, server, session, envelope) -> str:
        """aiosmtpd calls this with each message received."""
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        with self._arrived:
            self.messages.append(message)
            self._arrived.notify_all()
        return "250 Message accepted for delivery"

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def wait_for(self, count: int, timeout: float = 30.0) -> list[EmailMessage]:
        """The first ``count`` messages, once they have arrived."""
        with self._arrived:
            arrived = self._arrived.wait_for(lambda: len(self.messages) >= count, timeout)
        assert arrived, f"{len(self.messages)} of {count} messages arrived within {timeout} s"
        return self.messages[:count]

    def mailer(self) -> dict:
        """The ``MAILERS`` setting that sends through this server."""
        return {
            "default": {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": {"host": "127.0.0.1", "port": self.port, "use_tls": False},
            }
        }

    def env(self) -> dict[str, str]:
        """The environment that makes a server process send through this server."""
        return {
            "MAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": str(self.port),
            "SMTP_TLS": "0",
        }


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def link_in(message: EmailMessage, fragment: str) -> str:
    """The first link in ``message``'s text whose address holds ``fragment``."""
    return next(link for link in re.findall(r"https?://\S+", text_of(message)) if fragment in link)
