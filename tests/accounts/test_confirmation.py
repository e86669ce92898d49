"""Registration on PostgreSQL and Redis: the confirmation link mailed through a real SMTP server by the
Celery worker, links that are forged, expired or used, and what stops a script making accounts (a
budget per address, a box only a program fills in, a least time over the form)."""

import re
import time
from urllib.parse import urlsplit

import pytest
from django.core import signing
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts import services
from accounts.models import User
from tests.factories import make_user, registration_data
from tests.mailbox import link_in, text_of

REGISTER = "/accounts/register/"
PROFILE = "/accounts/profile/"


@pytest.fixture(autouse=True)
def full_budgets():
    """Every test starts with full budgets (they live in the shared cache, keyed by address and id)."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def smtp(settings, mailbox):
    """The site's mail goes out through the test's SMTP server."""
    settings.MAILERS = mailbox.mailer()
    return mailbox


def open_link(client: Client, link: str):
    """Open a mailed link with the test client (the link names the test client's host)."""
    parts = urlsplit(link)
    assert parts.netloc == "testserver"
    return client.get(parts.path)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "subject", "words"),
    [
        ("en", "Confirm your Șeptică email address", "Until you open it, your matches are casual"),
        ("ro", "Confirmă adresa de e-mail a contului de Șeptică", "Până îl deschizi, partidele tale sunt"),
    ],
)
def test_registration_mails_a_link_in_the_person_s_language_and_opening_it_confirms(
    client, smtp, celery_worker, django_capture_on_commit_callbacks, language, subject, words
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(REGISTER, registration_data("ion"), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 302
    ion = User.objects.get(username="ion")
    assert ion.email_confirmed_at is None
    assert 'data-testid="email-send-again"' in client.get(PROFILE).text

    (message,) = smtp.wait_for(1)
    assert message["To"] == "ion@example.com"
    assert message["Subject"] == subject
    assert words in text_of(message)
    page = open_link(client, link_in(message, "/accounts/confirm/"))
    assert page.status_code == 200 and 'data-testid="email-confirmed"' in page.text
    ion.refresh_from_db()
    assert ion.email_confirmed_at is not None
    assert 'data-testid="email-send-again"' not in client.get(PROFILE).text


def test_a_link_opens_once(client, db):
    ion = make_user("ion", fresh=True)
    link = reverse("accounts:email_confirm", args=[services.email_confirmation_token(ion)])
    assert client.get(link).status_code == 200
    ion.refresh_from_db()
    confirmed_at = ion.email_confirmed_at
    again = client.get(link)
    assert again.status_code == 400 and "This link has been used already" in again.text
    ion.refresh_from_db()
    assert ion.email_confirmed_at == confirmed_at


class IssuedLongAgo(signing.TimestampSigner):
    """Signs as the site does, dated ``EMAIL_CONFIRMATION_LINK_HOURS`` and a minute ago."""

    def __init__(self, hours: float) -> None:
        super().__init__(salt=services.EMAIL_CONFIRMATION_SALT)
        self.issued = time.time() - hours * 3600 - 60

    def timestamp(self) -> str:
        return signing.b62_encode(int(self.issued))


def test_an_expired_link_is_refused(client, db, settings):
    ion = make_user("ion", fresh=True)
    payload = services.email_confirmation_token(ion).rsplit(":", 2)[0]  # what is signed, without its date
    expired = IssuedLongAgo(settings.EMAIL_CONFIRMATION_LINK_HOURS).sign(payload)
    page = client.get(reverse("accounts:email_confirm", args=[expired]))
    assert page.status_code == 400 and "This link has expired" in page.text
    ion.refresh_from_db()
    assert ion.email_confirmed_at is None


def test_forged_links_are_refused(client, db):
    ion, eva = make_user("ion", fresh=True), make_user("eva", fresh=True)
    token = services.email_confirmation_token(ion)
    payload, stamp, signature = token.rsplit(":", 2)
    eva_payload = services.email_confirmation_token(eva).rsplit(":", 2)[0]
    forged = [
        f"{eva_payload}:{stamp}:{signature}",  # another account's payload under ion's signature
        f"{payload}:{stamp}:{signature[:-2]}xx",  # the signature altered
        signing.dumps([eva.pk, "0" * 32], salt=services.EMAIL_CONFIRMATION_SALT, key="not-the-site-key"),
        signing.dumps([ion.pk, token.split(":")[0]]),  # signed by the site, for another purpose
    ]
    for link in forged:
        page = client.get(reverse("accounts:email_confirm", args=[link]))
        assert page.status_code == 400 and "This link is not valid" in page.text, link
    assert not User.objects.filter(email_confirmed_at__isnull=False).exists()


def test_changing_the_email_unconfirms_it_mails_the_new_address_and_the_old_link_is_dead(
    client, db, smtp, celery_worker, django_capture_on_commit_callbacks
):
    ion = make_user("ion", fresh=True)
    old_link = reverse("accounts:email_confirm", args=[services.email_confirmation_token(ion)])
    client.get(old_link)
    ion.refresh_from_db()
    assert ion.email_confirmed_at is not None
    old_link_again = reverse("accounts:email_confirm", args=[services.email_confirmation_token(ion)])

    client.force_login(ion)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(PROFILE, {"email": "ion.nou@example.com"})
    ion.refresh_from_db()
    assert ion.email == "ion.nou@example.com" and ion.email_confirmed_at is None
    assert 'data-testid="email-send-again"' in client.get(PROFILE).text
    refused = client.get(old_link_again)
    assert refused.status_code == 400 and "an address the account no longer has" in refused.text

    (message,) = smtp.wait_for(1)
    assert message["To"] == "ion.nou@example.com"
    assert open_link(client, link_in(message, "/accounts/confirm/")).status_code == 200
    ion.refresh_from_db()
    assert ion.email_confirmed_at is not None


def test_sending_the_link_again_is_budgeted(
    client, db, smtp, settings, celery_worker, django_capture_on_commit_callbacks
):
    settings.EMAIL_CONFIRMATION_SENDS_PER_HOUR = 2
    ion = make_user("ion", fresh=True)
    client.force_login(ion)
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True) as queued:
            page = client.post(reverse("accounts:email_confirmation_send"), follow=True)
        assert "We have mailed a new link to ion@example.com." in page.text and len(queued) == 1
    with django_capture_on_commit_callbacks(execute=True) as queued:
        page = client.post(reverse("accounts:email_confirmation_send"), follow=True)
    assert "Links have been mailed to you several times already" in page.text
    assert queued == []
    first, second = smtp.wait_for(2)
    assert {first["To"], second["To"]} == {"ion@example.com"}


def register_from(address: str, username: str):
    return Client(REMOTE_ADDR=address).post(REGISTER, registration_data(username))


def test_registration_is_limited_per_address_before_any_database_work(
    db, settings, django_assert_num_queries
):
    settings.REGISTRATIONS_PER_ADDRESS_PER_HOUR = 2
    for name in ("ana", "ion"):
        assert register_from("203.0.113.7", name).status_code == 302
    with django_assert_num_queries(0):
        refused = register_from("203.0.113.7", "eva")
    assert refused.status_code == 429
    assert "Too many accounts have been made from your network lately" in refused.text
    assert not User.objects.filter(username="eva").exists()
    assert register_from("198.51.100.4", "eva").status_code == 302


def test_a_filled_in_hidden_box_is_refused(client, db):
    page = client.get(REGISTER).text
    assert re.search(r'<div hidden><label for="id_homepage">', page)
    response = client.post(REGISTER, registration_data("ion", homepage="https://spam.example/"))
    assert response.status_code == 200
    assert "This form was filled in by a program, not a person" in response.text
    assert not User.objects.exists()


def test_a_form_sent_faster_than_a_person_types_is_refused(client, db, settings):
    settings.REGISTRATION_MIN_FORM_SECONDS = 600  # far longer than this test takes between the two
    settings.REGISTRATIONS_PER_ADDRESS_PER_HOUR = 50
    shown_at = re.search(r'name="shown_at" value="([^"]+)"', client.get(REGISTER).text).group(1)
    response = client.post(REGISTER, registration_data("ion", shown_at=shown_at))
    assert "That was quicker than anyone can type" in response.text
    assert not User.objects.exists()
    for unreadable in ("", f"{time.time() - 3600:.3f}", shown_at[:-1]):  # missing, unsigned, altered
        response = client.post(REGISTER, registration_data("ion", shown_at=unreadable))
        assert "This form could not be read" in response.text
    assert not User.objects.exists()
    settings.REGISTRATION_MIN_FORM_SECONDS = 0
    assert client.post(REGISTER, registration_data("ion", shown_at=shown_at)).status_code == 302
