"""The benchmarks that write refuse a database holding people they did not make, unless told
``--i-know``; production (DEBUG off) does not install them at all."""

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command, load_command_class
from django.core.management.base import CommandError

from accounts.models import User
from bench.guard import WritingBenchmark, bench_username
from tests.factories import make_user

ROOT = Path(__file__).resolve().parent.parent.parent
WRITING = ["exportbench", "loadbench", "pairbench", "replaybench", "soak", "uploadbench"]


class Scribble(WritingBenchmark):
    """The smallest benchmark that writes: one person of its own."""

    def handle(self, *args, **options) -> None:
        make_user(bench_username(f"scribble-{User.objects.count()}"))
        self.stdout.write("ran")


def scribble(*args: str) -> str:
    out = StringIO()
    call_command(Scribble(), *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_an_empty_database_is_the_benchmarks_own() -> None:
    assert scribble() == "ran\n"
    assert scribble() == "ran\n", "the people a benchmark made are its own"


@pytest.mark.django_db
def test_a_database_with_a_person_is_refused_by_name() -> None:
    make_user("ana")
    with pytest.raises(CommandError, match=r"holds 1 people no benchmark made \(e\.g\. 'ana'\).*--i-know"):
        scribble()


@pytest.mark.django_db
def test_i_know_writes_beside_people() -> None:
    make_user("ana")
    assert scribble("--i-know") == "ran\n"


@pytest.mark.django_db
@pytest.mark.parametrize("name", WRITING)
def test_every_writing_benchmark_is_guarded(name: str) -> None:
    assert isinstance(load_command_class("bench", name), WritingBenchmark)
    make_user("ana")
    with pytest.raises(CommandError, match="no benchmark made"):
        call_command(name)


def installed_commands(debug: str) -> list[str]:
    """The commands ``manage.py`` offers with DEBUG set so."""
    environment = {**os.environ, "DEBUG": debug, "SECRET_KEY": "x" * 50}
    listed = subprocess.run(
        [sys.executable, "manage.py", "help", "--commands"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return listed.stdout.split()


def test_production_does_not_install_the_benchmarks() -> None:
    assert "loadbench" in installed_commands("1")
    assert not {"loadbench", "soak", "uploadbench"} & set(installed_commands("0"))
