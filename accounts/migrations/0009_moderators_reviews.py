"""The Moderators group's permissions set again to ``accounts.moderators.PERMISSIONS``, now that it names
the reviews': reading a review's marks (never of a match the moderator played in) and having any player's
seat reviewed for a fair-play case."""

from django.db import migrations

from accounts import moderators


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_moderators_api"),
        ("reviews", "0002_review_seat_permission"),
    ]

    # Going back leaves the group as it is: the earlier grants are history, not undone.
    operations = [migrations.RunPython(moderators.grant, migrations.RunPython.noop)]
