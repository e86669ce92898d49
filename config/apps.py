from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site as a whole: its management commands (``serve``, ``compiletranslations``)."""

    name = "config"
    label = "site"

    def ready(self) -> None:
        from . import health  # noqa: F401  (a worker stamps /health/ready's "heard from" on every task)
