"""What every page may ask of the site as a whole."""

from django.apps import apps
from django.http import HttpRequest


def optional_apps(request: HttpRequest) -> dict[str, bool]:
    """Whether the apps a deployment may leave out are in: ``chat_enabled`` (``CHAT_ENABLED``), so a
    page shows the chat only where there is one."""
    return {"chat_enabled": apps.is_installed("chat")}
