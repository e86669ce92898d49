"""The site's websocket routes, gathered from the installed apps: each app that has sockets says them
in its own ``routing`` module, and config names none of them."""

from importlib import import_module

from django.apps import apps
from django.urls import URLPattern
from django.utils.module_loading import module_has_submodule


def websocket_routes() -> list[URLPattern]:
    """Every installed app's websocket routes, in ``INSTALLED_APPS`` order (Channels' own ``routing``
    module, an installed app's too, has none)."""
    routes = []
    for app in apps.get_app_configs():
        if module_has_submodule(app.module, "routing"):
            routes += getattr(import_module(f"{app.name}.routing"), "websocket_urlpatterns", [])
    return routes
