"""``manage.py opendata [--month YYYY-MM] [--game G]``: build open data files now (last month's of
both games unless told), as beat does on the 1st."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from opendata import services
from tables.models import Game


class Command(BaseCommand):
    help = "Build the open data files of a month (last month by default) now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", help="YYYY-MM (UTC); last month when left out")
        parser.add_argument("--game", choices=Game.values, help="one game; both when left out")

    def handle(self, *args, month: str | None, game: str | None, **options) -> None:
        try:
            first = services.month_of(month) if month else services.last_month()
        except ValueError:
            raise CommandError(f"--month {month!r}: expected YYYY-MM.") from None
        for name in [game] if game else Game.values:
            dump = services.build(game=name, month=first)
            if dump is None:
                self.stdout.write(f"{name} {first:%Y-%m}: a build is running; it builds again once done.")
            else:
                self.stdout.write(
                    f"{dump.file_name}: {dump.matches} matches, {dump.size} bytes, "
                    f"{dump.build_seconds:.2f} s, sha256 {dump.sha256}"
                )
