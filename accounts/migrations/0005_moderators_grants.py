"""The Moderators group's permissions, set to exactly ``accounts.moderators.PERMISSIONS``: the one
place every right of the group is granted. It takes back what the earlier migrations gave that
moderation does not need (friendships, friend requests, blocks and notices)."""

from django.apps import apps
from django.db import migrations

from accounts import moderators


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_user_email_confirmed_at"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("tables", "0004_table_is_rated"),
        ("gameplay", "0007_match_clock_check_at"),
        ("ratings", "0002_moderators_void"),
        ("social", "0002_moderators_read"),
        # The chat may be left out (``CHAT_ENABLED``): then it grants nothing, and is not waited for.
        *([("chat", "0002_moderators")] if apps.is_installed("chat") else []),
    ]

    # Going back leaves the group as it is: the earlier grants are history, not undone.
    operations = [migrations.RunPython(moderators.grant, migrations.RunPython.noop)]
