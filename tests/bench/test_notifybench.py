"""``manage.py notifybench`` run tiny on the test database and Redis: a few people told of a tournament
starting through the whole path (the receivers, a worker deciding and sending), every push and email
arriving at the benchmark's own push service and SMTP server, and what it prints read back."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from notifications.models import Delivery, Way

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = 6


def test_a_tiny_notifybench_tells_everyone_both_ways() -> None:
    out = StringIO()
    call_command("notifybench", people=PEOPLE, timeout=120, stdout=out)
    printed = out.getvalue()
    for way in ("push", "email"):
        assert re.search(rf"{way}\s+all {PEOPLE} in [\d.]+ s", printed), printed
    assert f"outbox: {PEOPLE} pushes and {PEOPLE} emails sent, 0 unsent" in printed
    sent = Delivery.objects.filter(sent_at__isnull=False)
    assert sent.filter(way=Way.PUSH).count() == sent.filter(way=Way.EMAIL).count() == PEOPLE
