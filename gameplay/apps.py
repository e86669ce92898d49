from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GameplayConfig(AppConfig):
    """Matches played at a table: the rules engine, moves and score sheets."""

    name = "gameplay"
    verbose_name = _("Gameplay")
