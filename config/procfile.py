"""The production shape's processes as the ``Procfile`` spells them. A Daphne server is started the
same way everywhere (production through honcho, ``soak``, the tests' servers), so its command line,
with the listen queue and the handshake allowance a crowd of reconnecting pages needs, is written
once, in the ``Procfile``, and read from there."""

import shlex
import sys
from pathlib import Path
from string import Template

PROCFILE = Path(__file__).resolve().parent.parent / "Procfile"


def command(kind: str, **variables: str) -> list[str]:
    """The ``Procfile``'s ``kind`` line as arguments, its ``$NAME``s filled in from ``variables`` (as
    honcho fills them from the environment) and ``python`` run as this interpreter."""
    for line in PROCFILE.read_text().splitlines():
        name, colon, text = line.partition(":")
        if colon and not line.startswith("#") and name.strip() == kind:
            words = shlex.split(Template(text).substitute(variables))
            return [sys.executable, *words[1:]] if words[0] == "python" else words
    raise LookupError(f"The Procfile has no {kind!r} line.")


def daphne_command(port: int, host: str = "127.0.0.1") -> list[str]:
    """A Daphne server of the site on ``port`` of ``host``, started as production starts it."""
    return command("web", PORT=str(port), DAPHNE_HOST=host)
