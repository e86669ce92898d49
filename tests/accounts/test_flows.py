"""Account flows through the test client, on PostgreSQL."""

import time

import pytest
from django.core import mail
from django.core.cache import cache
from django.urls import reverse

from accounts.models import User
from tests.factories import registration_data

PASSWORD = "green-felt-table-42"


@pytest.fixture(autouse=True)
def clear_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def player(db) -> User:
    return User.objects.create_user("ana", "ana@example.com", PASSWORD)


def register(client, **overrides):
    return client.post(reverse("accounts:register"), {**registration_data("ion"), **overrides})


@pytest.mark.django_db
def test_register_creates_the_account_and_logs_in(client):
    response = register(client)
    assert response.status_code == 302
    assert response.url == reverse("home")
    user = User.objects.get(username="ion")
    assert user.email == "ion@example.com"
    assert user.check_password(PASSWORD)
    assert client.get(reverse("home")).context["user"] == user


def test_register_refuses_a_taken_username_whatever_its_case(client, player):
    response = register(client, username="ANA", email="other@example.com")
    assert response.status_code == 200
    assert "That username is taken" in response.text
    assert User.objects.count() == 1


def test_register_refuses_a_taken_email(client, player):
    response = register(client, email="Ana@Example.com")
    assert "An account with this email already exists" in response.text
    assert User.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("short1", "This password is too short"),
        ("password123", "This password is too common"),
        ("83927461029", "This password is entirely numeric"),
    ],
)
def test_register_refuses_weak_passwords_with_a_clear_reason(client, password, message):
    response = register(client, password1=password, password2=password)
    assert response.status_code == 200
    assert message in response.text
    assert not User.objects.exists()


@pytest.mark.django_db
def test_register_refuses_mismatched_passwords(client):
    response = register(client, password2=PASSWORD + "x")
    assert "The two password fields didn" in response.text
    assert not User.objects.exists()


def test_login_and_logout(client, player):
    response = client.post(reverse("accounts:login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("accounts:profile")).status_code == 200
    response = client.post(reverse("accounts:logout"))
    assert response.status_code == 302
    assert client.get(reverse("accounts:profile")).status_code == 302


def test_wrong_password_is_refused(client, player):
    response = client.post(reverse("accounts:login"), {"username": "ana", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.text


def test_deactivated_user_cannot_log_in(client, player):
    player.is_active = False
    player.save()
    response = client.post(reverse("accounts:login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_change_password(client, player):
    client.force_login(player)
    new = "a-brand-new-secret-77"
    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password(new)


def test_profile_updates_email_and_refuses_a_taken_one(client, player):
    User.objects.create_user("ion", "ion@example.com", PASSWORD)
    client.force_login(player)
    response = client.post(reverse("accounts:profile"), {"email": "ION@example.com"})
    assert "Another account already uses this email" in response.text
    client.post(reverse("accounts:profile"), {"email": "ana.new@example.com"})
    player.refresh_from_db()
    assert player.email == "ana.new@example.com"


def test_profile_needs_login(client, db):
    response = client.get(reverse("accounts:profile"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("accounts:login"))


def wait_for_mail(count: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while len(mail.outbox) < count and time.monotonic() < deadline:
        time.sleep(0.05)


def test_password_reset_mail_is_sent_by_the_worker_and_its_link_works(
    client, player, celery_worker, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("accounts:password_reset"), {"email": "ana@example.com"})
    assert response.status_code == 302
    wait_for_mail(1)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ana@example.com"]
    link = next(line for line in message.body.splitlines() if "/accounts/password/reset/" in line)
    path = link.split("testserver", 1)[1]
    response = client.get(path, follow=True)
    new = "reset-and-ready-2026"
    response = client.post(response.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.check_password(new)


def test_password_reset_for_an_unknown_email_sends_nothing_and_says_the_same(
    client, db, celery_worker, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302
    time.sleep(0.5)
    assert mail.outbox == []


def test_pages_carry_a_content_security_policy(client, db):
    response = client.get(reverse("home"))
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self' 'nonce-" in policy
    assert "unsafe-inline" not in policy


def test_forms_need_csrf(db):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post(reverse("accounts:login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 403
