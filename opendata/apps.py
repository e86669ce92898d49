from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OpendataConfig(AppConfig):
    """Every finished public rated match as open data: monthly JSON-lines files per game, compressed
    with zstd, listed on ``/data/`` under CC0."""

    name = "opendata"
    verbose_name = _("Open data")
