from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HistoryConfig(AppConfig):
    """Looking back: a player's matches, score sheets, replays and public profiles (reads only)."""

    name = "history"
    verbose_name = _("Match history")
