"""The embedded default's mail: printed on the server's console, readable there."""

from django.core.mail.backends import console


class ConsoleEmailBackend(console.EmailBackend):
    """Django's console backend, with each message's text as its reader sees it rather than encoded
    for the wire (quoted-printable breaks a long link across lines), so a person running the site
    on their own machine can open the confirmation link straight from the server's output."""

    def write_message(self, message) -> None:
        headers = "".join(
            f"{name}: {value}\n"
            for name, value in message.message().items()
            if name != "Content-Transfer-Encoding"  # the text below is not encoded
        )
        self.stream.write(f"{headers}\n{message.body}\n{'-' * 79}\n")
