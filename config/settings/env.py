"""Reading settings from the environment."""

import os
from pathlib import Path


def env_bool(name: str, default: bool) -> bool:
    """``1``, ``true``, ``yes`` or ``on`` (any case) is True; unset or empty: ``default``."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list (blanks dropped); unset or empty: ``default``."""
    value = os.environ.get(name)
    return [item.strip() for item in value.split(",") if item.strip()] if value else default


def env_header_value(name: str) -> tuple[str, str] | None:
    """``X-Forwarded-Proto,https`` as Django wants it: ``("HTTP_X_FORWARDED_PROTO", "https")``."""
    value = os.environ.get(name, "")
    if not value:
        return None
    header, _comma, expected = value.partition(",")
    if not header.strip() or not expected.strip():
        raise RuntimeError(f"Set {name} as HEADER,VALUE, e.g. X-Forwarded-Proto,https.")
    return "HTTP_" + header.strip().upper().replace("-", "_"), expected.strip()


def env_file(path: Path) -> dict[str, str]:
    """A file's ``NAME=value`` lines (blank lines and ``#`` comments skipped), as systemd's
    ``EnvironmentFile`` reads them; an absent file is no lines."""
    if not path.exists():
        return {}
    lines = (line.strip() for line in path.read_text().splitlines())
    pairs = (line.partition("=") for line in lines if line and not line.startswith("#"))
    return {name.strip(): value.strip() for name, _sign, value in pairs}
