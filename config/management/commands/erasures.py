"""``manage.py erasures``: the accounts closed for good erased again in this database, from the ledger
given on standard input (JSON: ``[[id, "when"], ...]``, as ``manage.py restore`` passes it) or, with
``--from-ledger``, from this database's own. ``restore`` runs it against the database it restored, so a
backup never brings a closed account back."""

import json
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.dateparse import parse_datetime

from privacy import services


class Command(BaseCommand):
    help = "Erase again the closed accounts a restored backup brought back (the ledger on stdin)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from-ledger", action="store_true", help="Use this database's own ledger, not stdin's."
        )

    def handle(self, *args, from_ledger: bool, **options) -> None:
        ledger = services.erasures_ledger() if from_ledger else read_ledger(sys.stdin.read())
        self.stdout.write(said(services.erasures_reapply(ledger=ledger), ledger))


def said(erased: list[int], ledger: dict) -> str:
    ids = ", ".join(f"#{user_id}" for user_id in erased) or "none had come back"
    return f"Erased again {len(erased)} of the {len(ledger)} closed accounts: {ids}."


def read_ledger(text: str) -> dict:
    try:
        return {int(user_id): parse_datetime(when) for user_id, when in json.loads(text)}
    except (ValueError, TypeError) as error:
        raise CommandError(f"The ledger is [[id, time], ...] in JSON: {error}") from None
