from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    """Tournaments: arenas and Swiss events on a calendar, and private ones among friends."""

    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from gameplay.models import Match
        from gameplay.signals import match_finished
        from gameplay.socket_parts import register
        from social.models import PoolEntry
        from social.signals import pool_joining
        from tables.models import Table
        from tables.signals import person_sitting

        from .consumers import TournamentTable
        from .receivers import pool_refused_while_playing
        from .services import match_decided, paused_for_seat

        match_finished.connect(match_decided, sender=Match, dispatch_uid="tournaments.match_decided")
        pool_joining.connect(pool_refused_while_playing, sender=PoolEntry, dispatch_uid="tournaments.pool")
        person_sitting.connect(paused_for_seat, sender=Table, dispatch_uid="tournaments.paused_for_seat")
        register(TournamentTable)  # a tournament table's banner and its players' way back
