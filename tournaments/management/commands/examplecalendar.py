"""Put a calendar to start from in the database, switched off."""

from django.core.management.base import BaseCommand

from tournaments import services


class Command(BaseCommand):
    help = (
        "Add an hourly Americana arena, a nightly classic Swiss event and a weekend long arena to the "
        "tournament calendar, switched off (a superuser switches them on in the admin). Lines already "
        "there by name are left as they are."
    )

    def handle(self, *args, **options) -> None:
        added = services.schedule_add_examples()
        for schedule in added:
            self.stdout.write(f"Added (switched off): {schedule.name}")
        if not added:
            self.stdout.write("The example lines are in the calendar already.")
