"""``manage.py tourneybench`` run tiny against a real Daphne and a worker with beat on the test database:
eight people joining a short arena of two-seat tables with its page's button, sent to each table by its
page's socket and playing each match (classic, one deal) over the table's, a ninth watching the page,
and what it prints read back. How fast is the benchmark's question, not this test's."""

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
    assert number(r"joined through the page's POST: (\d+) of", printed) == PEOPLE
    tables = number(r"tables made: (\d+)", printed)
    assert tables == Pairing.objects.filter(tournament=arena).count()
    assert tables > PEOPLE // 2, "someone played a second match"
    assert number(r"matches played to their end by the crowd: (\d+)", printed) > PEOPLE
    assert number(r"match end \(last move sent\) -> next go frame: .*\((\d+) samples\)", printed) >= 1
    assert number(r"match finished -> next table made \(database\): .*\((\d+) samples\)", printed) >= 1
    assert number(r"the arena's start, (\d+) first tables: go of the first 4 heard", printed) == PEOPLE // 2
    assert number(r"standings pushes to a watching page: .* at most (\d+) in a second", printed) >= 1
    assert number(r"people at two tables at once: (\d+)", printed) == 0
    assert " x " not in printed, "no person failed"
    assert number(r"pairing step, decision: (\d+) waiting -> 6 tables", printed) == 12
    assert number(r"pairing step, seating (\d+) tables .* news heard: first \d+ ms, all \d+ ms", printed) == 6
