"""The login limit (django-axes): one address trying many accounts, many addresses trying one account,
lockouts an admin sees and lifts, and the address read from the proxy's header."""

import pytest
from axes.models import AccessAttempt
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from tests.factories import PASSWORD, make_user

LIMIT = 3
LOCKED = "Too many failed attempts"


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def log_in(client, username: str, password: str, address: str = "127.0.0.1", **headers):
    data = {"username": username, "password": password}
    return client.post(reverse("accounts:login"), data, REMOTE_ADDR=address, **headers)


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_a_successful_login_still_works_and_a_few_mistakes_do_not_lock(client, db):
    make_user("ana")
    for _ in range(LIMIT - 1):
        assert log_in(client, "ana", "wrong").status_code == 200
    response = log_in(client, "ana", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_one_address_trying_many_accounts_is_stopped(client, db):
    victims = [make_user(f"victim{n}") for n in range(LIMIT + 1)]
    for victim in victims[:LIMIT]:
        log_in(client, victim.username, "password123", address="203.0.113.7")
    response = log_in(client, victims[LIMIT].username, PASSWORD, address="203.0.113.7")
    assert response.status_code == 429
    assert LOCKED in response.text
    assert not logged_in(client), "even the right password is refused while locked"
    # Another address is not held back by that one's failures.
    assert log_in(client, victims[LIMIT].username, PASSWORD, address="198.51.100.1").status_code == 302


def test_many_addresses_trying_one_account_are_stopped(client, db):
    make_user("ana")
    for n in range(LIMIT):
        log_in(client, "ana", "wrong", address=f"192.0.2.{n + 1}")
    response = log_in(client, "ANA", PASSWORD, address="192.0.2.200")
    assert response.status_code == 429 and not logged_in(client)
    make_user("ion")
    assert log_in(client, "ion", PASSWORD, address="192.0.2.200").status_code == 302


def test_the_lockout_message_is_in_romanian_too(client, db):
    for n in range(LIMIT):
        log_in(client, "ana", "wrong", address=f"192.0.2.{n + 1}")
    with translation.override("ro"):
        client.cookies["django_language"] = "ro"
        response = log_in(client, "ana", "wrong", address="192.0.2.99")
    assert response.status_code == 429
    assert "Prea multe încercări" in response.text


def test_behind_a_proxy_the_address_comes_from_the_configured_header(client, db, settings):
    settings.CLIENT_ADDRESS_HEADER = "HTTP_X_FORWARDED_FOR"
    make_user("ana")
    for n in range(LIMIT):
        make_user(f"victim{n}")
        # Every request comes from the proxy; the browser's address is the last one it appended.
        log_in(client, f"victim{n}", "wrong", HTTP_X_FORWARDED_FOR=f"1.2.3.4, 203.0.113.{n + 1}")
    assert log_in(client, "ana", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.50").status_code == 302
    assert {attempt.ip_address for attempt in AccessAttempt.objects.all()} == {
        f"203.0.113.{n + 1}" for n in range(LIMIT)
    }
    # A header that holds no address falls back on the connection's.
    client.post(reverse("accounts:logout"))
    assert log_in(client, "ana", "wrong", HTTP_X_FORWARDED_FOR="not-an-address").status_code == 200
    assert AccessAttempt.objects.filter(ip_address="127.0.0.1").exists()


def test_an_admin_sees_the_lockout_and_lifts_it(client, db):
    make_user("ana")
    for n in range(LIMIT):
        log_in(client, "ana", "wrong", address=f"192.0.2.{n + 1}")
    assert log_in(client, "ana", PASSWORD).status_code == 429

    admin_client = client.__class__()
    admin_client.force_login(User.objects.create_superuser("boss", "boss@example.com", PASSWORD))
    changelist = admin_client.get(reverse("admin:axes_accessattempt_changelist"), {"q": "ana"})
    assert changelist.status_code == 200
    assert "192.0.2.1" in changelist.text
    attempts = list(AccessAttempt.objects.filter(username="ana").values_list("pk", flat=True))
    response = admin_client.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "delete_selected", "_selected_action": attempts, "post": "yes"},
    )
    assert response.status_code == 302
    assert not AccessAttempt.objects.filter(username="ana").exists()

    assert log_in(client, "ana", PASSWORD).status_code == 302 and logged_in(client)
