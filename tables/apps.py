from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    """Who sits where: tables, seats, the lobby and invitations."""

    name = "tables"
    verbose_name = _("Tables")
