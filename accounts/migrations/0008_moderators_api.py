"""The Moderators group's permissions set again to ``accounts.moderators.PERMISSIONS``, now that it names
the API's rights, reading access tokens (never the token) and revoking one through the admin's action, and
the open data's: reading the files' list and building one again."""

from django.db import migrations

from accounts import moderators


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_bot_accounts"),
        ("api", "0001_initial"),
        ("opendata", "0001_initial"),
    ]

    # Going back leaves the group as it is: the earlier grants are history, not undone.
    operations = [migrations.RunPython(moderators.grant, migrations.RunPython.noop)]
