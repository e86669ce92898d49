from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SocialConfig(AppConfig):
    """Playing with people: the pairing pool, who is online, friends, blocks, and the notices that
    reach a person on whatever page they have open."""

    name = "social"
    verbose_name = _("Friends and pairing")

    def ready(self) -> None:
        from gameplay.signals import pace_turns_changed
        from tables.models import Table
        from tables.signals import person_sitting, table_filled

        from .receivers import pace_turns_changed as pace_turns_told
        from .services import invitations_lapse, pool_left_for_seat

        table_filled.connect(invitations_lapse, sender=Table, dispatch_uid="social.invitations_lapse")
        person_sitting.connect(pool_left_for_seat, sender=Table, dispatch_uid="social.pool_left_for_seat")
        pace_turns_changed.connect(pace_turns_told, dispatch_uid="social.pace_turns_changed")
