"""``manage.py tourneybench`` run tiny against a real Daphne and a worker with beat on the test database:
eight people in a short arena of two-seat tables, each table's match (classic, one deal) played over its
socket, and what it prints read back. How fast is the benchmark's question, not this test's."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from tournaments.models import Entry, Pairing, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = 8


def number(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in:\n{text}"
    return int(found.group(1))


def test_a_tiny_arena_is_played_and_reported(live_server_url: str) -> None:
    out = StringIO()
    call_command(
        "tourneybench",
        url=live_server_url,
        people=PEOPLE,
        seats=2,
        arena_seconds=25,
        join_seconds=1,
        move_seconds=0.05,
        crowd=12,
        from_this_machine=True,
        stdout=out,
    )
    printed = out.getvalue()
    arena = Tournament.objects.get(name__startswith="Benchmark arena")
    assert Entry.objects.filter(tournament=arena).count() == PEOPLE, printed
    tables = number(r"tables made: (\d+)", printed)
    assert tables == Pairing.objects.filter(tournament=arena).count()
    assert tables > PEOPLE // 2, "someone played a second match"
    assert number(r"matches played to their end by the crowd: (\d+)", printed) > PEOPLE
    assert number(r"match end -> next table heard of: .*\((\d+) samples\)", printed) >= 1
    assert number(r"match finished -> next table made \(database\): .*\((\d+) samples\)", printed) >= 1
    assert number(r"people at two tables at once: (\d+)", printed) == 0
    assert " x " not in printed, "no person failed"
    assert number(r"pairing step, (\d+) waiting -> 6 tables", printed) == 12
