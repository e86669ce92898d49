"""Preparing a download and closing an account are budgeted per browser address too, whatever its
accounts, and spent before anything is read."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from privacy import services
from privacy.models import DataExport
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

SAVEPOINTS = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")
"""What the test's own transaction makes of a service's ``atomic``: no database work."""


def browser_of(user, address: str = "203.0.113.5") -> Client:
    browser = Client(REMOTE_ADDR=address)
    browser.force_login(user)
    return browser


def test_downloads_asked_from_one_address_are_stopped_by_its_budget(settings):
    settings.DATA_EXPORTS_PER_ADDRESS_PER_DAY = 2
    for index in range(3):
        browser_of(make_user(f"farm{index}")).post("/accounts/data/prepare/")
    assert DataExport.objects.count() == 2
    refused = browser_of(make_user("late")).post("/accounts/data/prepare/", follow=True).content.decode()
    assert "Many downloads were asked for from your network today" in refused
    browser_of(make_user("elsewhere"), "198.51.100.7").post("/accounts/data/prepare/")
    assert DataExport.objects.count() == 3


def test_a_download_refused_by_the_budget_reads_nothing(settings):
    settings.DATA_EXPORTS_PER_DAY = 1
    ana = make_user("ana")
    services.export_request(user=ana, address="203.0.113.5")
    with (
        CaptureQueriesContext(connection) as queries,
        pytest.raises(services.PrivacyError, match="often today"),
    ):
        services.export_request(user=ana, address="203.0.113.5")
    assert [query["sql"] for query in queries if not query["sql"].startswith(SAVEPOINTS)] == []


def test_passwords_tried_from_one_address_to_close_accounts_are_stopped_by_its_budget(settings):
    settings.CLOSE_ACCOUNT_ATTEMPTS_PER_ADDRESS_PER_HOUR = 2
    for index in range(2):
        page = browser_of(make_user(f"farm{index}")).post(
            "/accounts/close/", {"password": "guess", "understood": "on"}
        )
        assert "That is not your password" in page.content.decode()
    late = make_user("late")
    page = browser_of(late).post("/accounts/close/", {"password": PASSWORD, "understood": "on"})
    assert "Too many tries" in page.content.decode()
    late.refresh_from_db()
    assert late.is_active and not late.erased_at
