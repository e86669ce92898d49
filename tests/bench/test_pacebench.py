"""``manage.py pacebench`` run tiny on the test database: each count filled, the sweep timed idle and
busy, and the idle sweep's statements the same at every count (its cost does not grow with the matches
open: the timing is the benchmark's question, the statements are this test's)."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from gameplay.models import Match, Move

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_tiny_pacebench_fills_times_and_reports(settings) -> None:
    settings.BOT_PAUSE_SECONDS = (0.0, 0.0)
    out = StringIO()
    call_command("pacebench", counts=[30, 60], passes=3, due=2, stdout=out)
    printed = out.getvalue()
    rows = re.findall(r"^\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(\d+)/(\d+)$", printed, re.MULTILINE)
    assert [int(count) for count, _idle, _busy in rows] == [30, 60], printed
    assert len({idle for _count, idle, _busy in rows}) == 1, f"the idle sweep's statements grew:\n{printed}"
    assert Match.objects.filter(status=Match.Status.PLAYING, due=Match.Due.PACE).count() == 60
    assert Move.objects.filter(actor=Move.Actor.TAKEOVER).count() == 2 * 3 * 2, "each busy pass's bots played"
    assert "The sweep's look at the deadlines" in printed
