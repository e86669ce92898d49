"""Accounts cost nothing to make: what a person spends (friend requests, invitations, pool joins) is
also budgeted per browser address, and what a person receives (requests and invitations, each a
notice and a toast) per recipient, however many accounts and addresses send."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from gameplay import services as gameplay_services
from social import services
from social.models import FriendRequest, Friendship, Notice, PoolEntry
from tests.factories import make_user

pytestmark = pytest.mark.django_db

ACCOUNTS = 40
SAVEPOINTS = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")
"""What the test's own transaction makes of a service's ``atomic``: no database work."""


def database_work(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries if not query["sql"].startswith(SAVEPOINTS)]


def _request_from(sender, recipient, address: str) -> None:
    """``sender`` asks ``recipient`` to be friends from the friends page, in a browser at ``address``."""
    browser = Client(REMOTE_ADDR=address)
    browser.force_login(sender)
    browser.post("/friends/request/", {"person": recipient.pk})


def test_forty_accounts_from_one_address_are_stopped_by_the_addresss_budget(settings):
    settings.SOCIAL_REQUESTS_PER_ADDRESS_PER_HOUR = 10
    targets = [make_user(f"target{index}") for index in range(ACCOUNTS)]
    for index, target in enumerate(targets):
        _request_from(make_user(f"farm{index}"), target, "203.0.113.5")
    assert FriendRequest.objects.count() == Notice.objects.count() == 10
    # Another address is another budget.
    _request_from(make_user("elsewhere"), targets[-1], "198.51.100.20")
    assert FriendRequest.objects.filter(recipient=targets[-1]).count() == 1


def test_the_address_refusal_says_so(settings):
    settings.SOCIAL_REQUESTS_PER_ADDRESS_PER_HOUR = 1
    ana, ion, eva = make_user("ana"), make_user("ion"), make_user("eva")
    services.friend_request_send(sender=ana, recipient=ion, address="203.0.113.5")
    with pytest.raises(services.SocialError, match="from your network"):
        services.friend_request_send(sender=eva, recipient=ion, address="203.0.113.5")


def test_forty_addresses_to_one_person_give_them_only_the_recipients_budget_of_notices(settings):
    target = make_user("target")
    for index in range(ACCOUNTS):
        _request_from(make_user(f"farm{index}"), target, f"10.0.{index}.1")
    received = settings.SOCIAL_REQUESTS_RECEIVED_PER_HOUR
    assert received < ACCOUNTS
    assert FriendRequest.objects.filter(recipient=target).count() == received
    assert Notice.objects.filter(recipient=target).count() == received
    with pytest.raises(services.SocialError, match="sent many requests and invitations just now"):
        services.friend_request_send(sender=make_user("late"), recipient=target, address="10.1.0.1")


def test_invitations_spend_the_recipients_budget_too(settings):
    settings.SOCIAL_REQUESTS_RECEIVED_PER_HOUR = 2
    ion = make_user("ion")
    for index in range(3):
        host = make_user(f"host{index}")
        Friendship.objects.bulk_create(
            [Friendship(person=host, friend=ion), Friendship(person=ion, friend=host)]
        )
        table = gameplay_services.table_create(
            host=host, game="americana", options={"players": 3}, turn_clock=45, is_private=True
        )
        if index < 2:
            services.invitation_send(by=host, table_id=table.pk, friend_id=ion.pk, address=f"10.0.{index}.1")
        else:
            with pytest.raises(services.SocialError, match="just now"):
                services.invitation_send(
                    by=host, table_id=table.pk, friend_id=ion.pk, address=f"10.0.{index}.1"
                )
    assert Notice.objects.filter(recipient=ion, kind=Notice.Kind.INVITATION).count() == 2


def test_a_request_refused_by_a_budget_reads_nothing(settings):
    settings.SOCIAL_REQUESTS_PER_HOUR = 1
    ana, ion, eva = make_user("ana"), make_user("ion"), make_user("eva")
    services.friend_request_send(sender=ana, recipient=ion, address="203.0.113.5")
    with CaptureQueriesContext(connection) as queries, pytest.raises(services.SocialError):
        services.friend_request_send(sender=ana, recipient=eva, address="203.0.113.5")
    assert database_work(queries) == []


def test_pool_joins_from_one_address_are_stopped_by_the_addresss_budget(settings):
    """Five joins a minute from the address: the sixth account, right after, finds it spent."""
    settings.POOL_JOINS_PER_ADDRESS_PER_MINUTE = 5
    form = {"game": "americana", "players": 4, "target": 101, "match": "points8"}
    browsers = []
    for index in range(6):
        browser = Client(REMOTE_ADDR="203.0.113.5")
        browser.force_login(make_user(f"farm{index}"))
        browsers.append(browser)
    for browser in browsers:
        browser.post("/play/", form)
    assert PoolEntry.objects.count() == 5
    refused = browsers[-1].get("/play/").content.decode()
    assert "Too many joins have come from your network just now" in refused
    services.pool_join(
        user=make_user("elsewhere"),
        game="americana",
        players=4,
        length=101,
        fill_with_bots=False,
        address="10.0.0.1",
    )
    assert PoolEntry.objects.count() == 6
