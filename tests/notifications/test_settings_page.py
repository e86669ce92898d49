"""The settings page: the kinds × ways table with the defaults ticked, saved through its form with the
quiet hours and a time zone, in the language the page was used in; a half-given quiet hours refused."""

import pytest
from django.test import Client

from notifications.models import Kind, Preference, Way
from tests.factories import make_user

PAGE = "/notifications/"


@pytest.mark.django_db
def test_the_settings_page_shows_the_defaults_and_saves_the_choices():
    mara = make_user("mara")
    client = Client(HTTP_ACCEPT_LANGUAGE="ro")
    client.force_login(mara)
    page = client.get(PAGE)
    assert page.status_code == 200
    assert f'name="{Kind.YOUR_TURN}-{Way.EMAIL}" id="id_{Kind.YOUR_TURN}-{Way.EMAIL}" checked' in page.text
    assert f'name="{Kind.INVITATION}-{Way.EMAIL}" id="id_{Kind.INVITATION}-{Way.EMAIL}">' in page.text
    assert 'href="/notifications/"' in client.get("/accounts/profile/").text

    refused = client.post(PAGE, {"quiet_from": "22:00", "time_zone": "Europe/Bucharest"})
    assert refused.status_code == 200 and not Preference.objects.exists()
    assert client.post(PAGE, {"time_zone": "Mars/Olympus"}).status_code == 200
    saved = client.post(
        PAGE,
        {
            f"{Kind.INVITATION}-{Way.EMAIL}": "on",
            f"{Kind.YOUR_TURN}-{Way.PUSH}": "on",
            "quiet_from": "22:30",
            "quiet_until": "07:00",
            "time_zone": "America/New_York",
        },
    )
    assert saved.status_code == 302
    preference = Preference.objects.get(user=mara)
    assert preference.ways[Kind.INVITATION] == [Way.EMAIL] and preference.ways[Kind.YOUR_TURN] == [Way.PUSH]
    assert not preference.sends(Kind.WARNING, Way.EMAIL)
    assert (str(preference.quiet_from), str(preference.quiet_until)) == ("22:30:00", "07:00:00")
    assert (preference.time_zone, preference.language) == ("America/New_York", "ro")
