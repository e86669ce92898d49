from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GameplayConfig(AppConfig):
    """Matches played at a table: the rules engine, moves and score sheets."""

    name = "gameplay"
    verbose_name = _("Gameplay")

    def ready(self) -> None:
        from django.utils import translation

        from accounts.models import User
        from accounts.signals import user_banned
        from tables.models import Table
        from tables.signals import table_filled

        from .games import words
        from .services import deal_when_filled, player_banned

        words.install(translation.gettext, translation.ngettext)

        table_filled.connect(deal_when_filled, sender=Table, dispatch_uid="gameplay.deal_when_filled")
        user_banned.connect(player_banned, sender=User, dispatch_uid="gameplay.player_banned")
