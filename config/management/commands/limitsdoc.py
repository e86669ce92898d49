"""``manage.py limitsdoc``: write docs/limits.md, the table of every limit, from the one list of them
(``config.settings.limits``) and nginx's zones as ``deploy/nginx.conf.template`` sets them."""

import re
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from config.settings.limits import LIMITS, Area, Limit

DOC = Path(settings.BASE_DIR) / "docs" / "limits.md"
NGINX_TEMPLATE = Path(settings.BASE_DIR) / "deploy" / "nginx.conf.template"
COUNTED_BY = {
    "limited_address": "each address (but UNLIMITED_ADDRESSES)",
    "sending_address": "each address's POSTs (but UNLIMITED_ADDRESSES)",
    "health_address": "each address but this machine and TRUSTED_PROXIES",
}
"""Who an nginx zone counts, by the variable it is keyed on."""


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def default_text(limit: Limit) -> str:
    return f"{limit.default:g}" + (" (fixed)" if limit.fixed else "")


def area_section(area: Area, limits: list[Limit]) -> list[str]:
    lines = [f"## {area.title}", ""]
    if area.note:
        lines += [area.note, ""]
    lines += ["| Setting | Default | What it guards |", "|---|---|---|"]
    lines += [f"| `{limit.name}` | {default_text(limit)} | {cell(limit.guards)} |" for limit in limits]
    return [*lines, ""]


def nginx_section(template: str) -> list[str]:
    """nginx's request and connection zones, each with who it counts, its rate and where it applies."""
    zones: dict[str, tuple[str, str]] = {}
    """Each zone's whom it counts and its rate."""
    for key, zone, rate in re.findall(
        r"^\s*limit_(?:req|conn)_zone \$(\w+) zone=(\w+):\S+(?: rate=(\S+))?;", template, re.MULTILINE
    ):
        zones[zone] = (COUNTED_BY.get(key, f"`${key}`"), rate or "open connections")
    where: dict[str, list[str]] = {zone: [] for zone in zones}
    location = ""
    for line in template.splitlines():
        if found := re.match(r"\s*location (.+?) \{", line):
            location = found.group(1)
        elif found := re.match(r"\s*limit_req zone=(\w+) burst=(\d+)", line):
            where[found.group(1)].append(f"`{location}` (burst {found.group(2)})")
        elif found := re.match(r"\s*limit_conn (\w+) (\d+);", line):
            where[found.group(1)].append(f"`{location}` (at most {found.group(2)})")
    lines = [
        "## nginx, in front of the site",
        "",
        "Set in `deploy/nginx.conf.template` (`manage.py prod` writes it out), not in the settings; "
        "refused requests get 429.",
        "",
        "| Zone | Counts | Rate | Where |",
        "|---|---|---|---|",
    ]
    for zone, (counted, rate) in zones.items():
        lines.append(f"| `{zone}` | {counted} | {rate} | {cell(', '.join(where[zone]))} |")
    return [*lines, ""]


def limits_markdown() -> str:
    """docs/limits.md as the limits now say it."""
    lines = [
        "# Limits",
        "",
        "<!-- Written by `manage.py limitsdoc` from config/settings/limits.py and "
        "deploy/nginx.conf.template: change those, then run it. -->",
        "",
        "Every budget and cap on what one person or one address may do. Each setting is read from the "
        "environment variable of its name (but those marked fixed); a budget per hour or per minute may "
        "be spent at once and refills steadily (`accounts.limits`).",
        "",
    ]
    areas = list(dict.fromkeys(limit.area for limit in LIMITS))
    for area in areas:
        lines += area_section(area, [limit for limit in LIMITS if limit.area == area])
    lines += nginx_section(NGINX_TEMPLATE.read_text())
    return "\n".join(lines).rstrip() + "\n"


class Command(BaseCommand):
    help = "Write docs/limits.md from config/settings/limits.py and nginx's configuration."

    def handle(self, *args, **options) -> None:
        DOC.parent.mkdir(exist_ok=True)
        DOC.write_text(limits_markdown())
        self.stdout.write(f"Wrote {DOC.relative_to(settings.BASE_DIR)}.")
