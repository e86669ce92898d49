"""The Moderators group's permissions set again to ``accounts.moderators.PERMISSIONS``, now that it names
the tournaments' rights: reading tournaments, their players and the moderators' record, and disqualifying
a player or cancelling a tournament through the admin's actions."""

from django.apps import apps
from django.db import migrations

from accounts import moderators


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_moderators_grants"),
        ("tables", "0005_table_rated_decision"),
        ("gameplay", "0007_match_clock_check_at"),
        ("ratings", "0002_moderators_void"),
        ("social", "0003_notices_from_the_site"),
        ("tournaments", "0001_initial"),
        # The chat may be left out (``CHAT_ENABLED``): then it grants nothing, and is not waited for.
        *([("chat", "0002_moderators")] if apps.is_installed("chat") else []),
    ]

    # Going back leaves the group as it is: the earlier grants are history, not undone.
    operations = [migrations.RunPython(moderators.grant, migrations.RunPython.noop)]
