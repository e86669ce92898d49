"""Recompute every rating from the rated matches, in the order the site rated them."""

import time

from django.core.management.base import BaseCommand

from ratings import services


class Command(BaseCommand):
    help = (
        "Recompute every rating from the finished rated matches, in the order the live updates made them "
        "(voids included), rating too the matches decided before rated play began."
    )

    def handle(self, *args, **options) -> None:
        started = time.perf_counter()
        rebuilt = services.ratings_rebuild()
        self.stdout.write(
            f"{rebuilt.matches} matches rated ({rebuilt.newly_rated} for the first time, "
            f"{rebuilt.voided} voided) for {rebuilt.people} people in {time.perf_counter() - started:.1f} s."
        )
