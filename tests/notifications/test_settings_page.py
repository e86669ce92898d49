"""The settings page: the kinds × ways table with the defaults ticked, saved through its form with the
quiet hours and a time zone, in the language the page was used in; a half-given quiet hours refused."""

from urllib.parse import urlsplit

import pytest
from django.test import Client

from notifications import mail
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


@pytest.mark.django_db
def test_saving_spends_the_persons_and_the_addresss_budgets(settings):
    settings.NOTIFY_SETTINGS_SAVES_PER_HOUR = 2
    settings.NOTIFY_SETTINGS_SAVES_PER_ADDRESS_PER_HOUR = 3
    mara, dan = make_user("mara"), make_user("dan")
    client = Client()
    client.force_login(mara)
    chosen = {"time_zone": "Europe/Bucharest", f"{Kind.INVITATION}-{Way.EMAIL}": "on"}
    assert [client.post(PAGE, chosen).status_code for _ in range(2)] == [302, 302]
    refused = client.post(PAGE, {**chosen, "time_zone": "America/New_York"})
    assert refused.status_code == 429 and "too often" in refused.text
    assert Preference.objects.get(user=mara).time_zone == "Europe/Bucharest", "nothing saved"
    client.force_login(dan)  # another account from the same address
    assert client.post(PAGE, chosen).status_code == 302
    from_network = client.post(PAGE, chosen)
    assert from_network.status_code == 429 and "from your network" in from_network.text


@pytest.mark.django_db
def test_unsubscribe_links_spend_the_persons_budget_and_the_addresss(settings):
    settings.UNSUBSCRIBES_PER_HOUR = 1
    settings.UNSUBSCRIBES_PER_ADDRESS_PER_HOUR = 2
    mara, dan, eva = make_user("mara"), make_user("dan"), make_user("eva")
    visitor = Client()  # no login: the signed link is the proof
    links = [urlsplit(mail.unsubscribe_url(mara.pk, kind)).path for kind in (Kind.YOUR_TURN, Kind.INVITATION)]
    assert 'data-testid="unsubscribe-done"' in visitor.post(links[0]).text
    refused = visitor.post(links[1])
    assert refused.status_code == 429 and 'data-testid="unsubscribe-throttled"' in refused.text
    assert Preference.objects.get(user=mara).sends(Kind.INVITATION, Way.EMAIL) == Preference().sends(
        Kind.INVITATION, Way.EMAIL
    ), "the second kind left as it was"
    assert visitor.get(links[1]).status_code == 200, "opening a link (a mail checker does) costs nothing"
    dans, evas = (urlsplit(mail.unsubscribe_url(user.pk, Kind.YOUR_TURN)).path for user in (dan, eva))
    assert visitor.post(dans).status_code == 200
    assert "from your network" in visitor.post(evas).text
