from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site as a whole: its management commands (``serve``, ``compiletranslations``)."""

    name = "config"
    label = "site"
