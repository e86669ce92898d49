from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    """Rated play: a rating per person and game, moved by every rated match once it is decided."""

    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from gameplay.models import Match
        from gameplay.signals import match_finished
        from tables.models import Table
        from tables.signals import seat_notes

        from .selectors import seat_ratings
        from .services import match_decided

        match_finished.connect(match_decided, sender=Match, dispatch_uid="ratings.match_decided")
        seat_notes.connect(seat_ratings, sender=Table, dispatch_uid="ratings.seat_ratings")
