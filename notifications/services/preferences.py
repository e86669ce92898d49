"""A person's notification settings: the settings page saved, the language they are written in kept
current, and an email's one-click unsubscribe."""

from datetime import time

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from accounts import limits
from accounts.models import User

from .. import mail
from ..models import CHOSEN_WAYS, Delivery, Kind, Preference, Way


class Throttled(Exception):
    """The settings were saved, or unsubscribe links used, too often; the text says why and how long to
    wait."""


def preference_save(
    *,
    user,
    ways: dict[str, list[str]],
    quiet_from: time | None,
    quiet_until: time | None,
    time_zone: str,
    language: str,
    address: str | None = None,
) -> Preference:
    """Save the settings page: the ways each kind goes out (every kind said, so the defaults no longer
    apply), the quiet hours in ``time_zone``, and the page's language as the one to write in.
    ``address``: the browser's (None when not from one), whose budget it spends too."""
    if shortfall := limits.spend_person_and_address(
        "notify-settings",
        user.pk,
        address,
        count=settings.NOTIFY_SETTINGS_SAVES_PER_HOUR,
        address_count=settings.NOTIFY_SETTINGS_SAVES_PER_ADDRESS_PER_HOUR,
        seconds=3600,
        refusal=_("You saved your settings too often: try again in %(seconds)d s."),
        address_refusal=_("Settings were saved too often from your network: try again in %(seconds)d s."),
    ):
        raise Throttled(shortfall.said)
    chosen = {kind: [way for way in CHOSEN_WAYS if way in ways.get(kind, [])] for kind in Kind.values}
    preference, _made = Preference.objects.update_or_create(
        user=user,
        defaults={
            "ways": chosen,
            "quiet_from": quiet_from,
            "quiet_until": quiet_until,
            "time_zone": time_zone,
            "language": language,
        },
    )
    return preference


def preference_language_set(*, user_id: int, language: str) -> None:
    """Write to the person in ``language`` (the site's, at their login) from now on."""
    if language not in dict(settings.LANGUAGES):
        return
    with transaction.atomic():
        updated = (
            Preference.objects.filter(user_id=user_id).exclude(language=language).update(language=language)
        )
        if not updated:
            Preference.objects.get_or_create(user_id=user_id, defaults={"language": language})


def unsubscribe(*, token: str, address: str | None = None) -> str | None:
    """Stop the emails of the kind an unsubscribe link names, for its person, and drop those of it not
    sent yet; the kind, or None when the link was altered. Using it again changes nothing. Needs no
    login, so it spends from the budget of the person the link names and from ``address``'s."""
    reading = mail.unsubscribe_reading(token)
    if reading is None:
        return None
    user_id, kind = reading
    if shortfall := limits.spend_person_and_address(
        "unsubscribes",
        user_id,
        address,
        count=settings.UNSUBSCRIBES_PER_HOUR,
        address_count=settings.UNSUBSCRIBES_PER_ADDRESS_PER_HOUR,
        seconds=3600,
        refusal=_("This account's links were used too often just now: try again in %(seconds)d s."),
        address_refusal=_("Too many links were used from your network just now: try again in %(seconds)d s."),
    ):
        raise Throttled(shortfall.said)
    with transaction.atomic():
        if not User.objects.filter(pk=user_id, erased_at__isnull=True).exists():
            return kind  # a closed account: nothing is sent to it anyway
        preference, _made = Preference.objects.select_for_update().get_or_create(user_id=user_id)
        preference.ways = {
            **preference.ways,
            kind: [way for way in preference.ways_for(kind) if way != Way.EMAIL],
        }
        preference.save(update_fields=["ways"])
        Delivery.objects.filter(user_id=user_id, kind=kind, way=Way.EMAIL, sent_at__isnull=True).delete()
    return kind
