from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PracticeConfig(AppConfig):
    """Practice against bots on the player's own device, and saving a finished one to history."""

    name = "practice"
    verbose_name = _("Practice")
