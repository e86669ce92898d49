from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BotsConfig(AppConfig):
    """Computer players: policies that see a seat's view only, run by Celery tasks."""

    name = "bots"
    verbose_name = _("Bots")
