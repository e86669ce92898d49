"""A benchmark that writes people, tables and matches runs on a database nobody else lives in.

Every person a benchmark makes has a username beginning with ``BENCH_PREFIX``; any other person in the
database is someone's (a player, a developer's own account), and a benchmark refuses to write beside
them unless told ``--i-know``.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

BENCH_PREFIX = "bench-"
"""The start of every username a benchmark makes."""


def bench_username(name: str) -> str:
    """A benchmark's person's username: ``name`` marked as the benchmarks' own."""
    return f"{BENCH_PREFIX}{name}"


def refuse_someones_database() -> None:
    """Raise CommandError when the database holds a person no benchmark made."""
    strangers = get_user_model().objects.exclude(username__startswith=BENCH_PREFIX)
    count = strangers.count()
    if count:
        raise CommandError(
            f"{connection.settings_dict['NAME']} holds {count} people no benchmark made (e.g. "
            f"{strangers.order_by('pk').first().username!r}): a benchmark writes people, tables and matches "
            "beside them. Run it on a database of its own, or pass --i-know to write there anyway."
        )


class WritingBenchmark(BaseCommand):
    """A benchmark that writes to the database: it checks the database is its own before it runs."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.add_argument(
            "--i-know",
            action="store_true",
            help="write even though the database holds people no benchmark made",
        )
        return parser

    def execute(self, *args, **options):
        if not options.get("i_know"):
            refuse_someones_database()
        return super().execute(*args, **options)
