"""The practice page on a shared device, as the server sends it: the page the device keeps has nobody
in it (no name, no log-out form, no messages), a small request never kept says who is logged in, and
every other page names them so the device's practice records can be kept per person."""

import re

import pytest
from django.urls import reverse

from practice.views import offline
from tests.factories import make_user
from tests.practice.test_pages import config_of

pytestmark = pytest.mark.django_db


def test_the_practice_page_has_nobody_in_it(client):
    client.force_login(make_user("zorela"))
    client.post(reverse("accounts:profile"), {"email": "zorela@example.org"})  # leaves a message
    page = client.get(reverse("practice:play"))
    html = page.content.decode()
    assert "zorela" not in html
    assert reverse("accounts:logout") not in html
    assert "Your profile is saved." not in html and 'class="messages"' not in html
    assert 'name="practice-person"' not in html
    config = config_of(page)
    assert config["me"] == reverse("practice:me") and config["guest"] == "Guest"
    assert "player" not in config and "loggedIn" not in config
    # The message was not spent on a page that does not show it: the next page shows it.
    assert "Your profile is saved." in client.get(reverse("home")).content.decode()


def test_the_page_asks_who_is_logged_in_and_the_answer_is_never_kept(client, ana):
    anonymous = client.get(reverse("practice:me"))
    assert anonymous.json()["person"] is None
    assert reverse("accounts:login") in anonymous.json()["account"]
    client.force_login(ana)
    answer = client.get(reverse("practice:me"))
    assert "no-store" in answer["Cache-Control"]
    assert answer.json()["person"] == {"id": ana.pk, "name": "ana"}
    links = answer.json()["account"]
    assert 'data-testid="profile-link">ana</a>' in links
    assert f'action="{reverse("accounts:logout")}"' in links and "csrfmiddlewaretoken" in links
    assert "/static/js/practice-records.js" not in links  # the links alone


def test_every_other_page_names_who_is_logged_in_for_the_devices_practice_records(client, ana):
    meta = re.compile(r'<meta name="practice-person" content="([^"]*)" data-name="([^"]*)">')
    assert meta.findall(client.get(reverse("home")).content.decode()) == [("", "")]
    client.force_login(ana)
    for page in (reverse("home"), reverse("accounts:profile"), reverse("history:mine")):
        html = client.get(page).content.decode()
        assert meta.findall(html) == [(str(ana.pk), "ana")], page
        assert "/static/js/practice-records.js" in html


def test_the_script_keeping_records_per_person_is_among_the_files_kept_for_offline(client):
    assert "/static/js/practice-records.js" in [file["url"] for file in offline().files]
    worker = client.get(reverse("practice:service_worker")).content.decode()
    assert '"/static/js/practice-records.js"' in worker
