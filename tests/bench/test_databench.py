"""``manage.py databench`` run tiny on the test database: the month filled, the file built apart and
here, and every line read back equal to its match's record (the command fails otherwise)."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from gameplay.models import Match, Move
from opendata.models import Dump

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_tiny_databench_fills_builds_and_reads_back() -> None:
    out = StringIO()
    call_command("databench", matches=25, distinct=4, game="classic", stdout=out)
    printed = out.getvalue()
    assert re.search(r"^filled 25 classic matches of 2000-01 \(\d+ moves\)", printed, re.MULTILINE), printed
    assert "build: 25 matches" in printed and "tracemalloc peak" in printed and "MiB above" in printed
    assert "read back: 25 lines, each the record of its match" in printed
    assert Match.objects.filter(table__is_rated=True, table__is_private=False).count() == 25
    assert Move.objects.count() > 25 * 20
    assert list(Dump.objects.values_list("month", "matches")) == [
        (Match.objects.first().finished_at.date().replace(day=1), 25)
    ]
