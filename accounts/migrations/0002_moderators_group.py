"""The Moderators group: what moderation in the admin needs (tables, seats, matches, banning), nothing more."""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATORS = "Moderators"
PERMISSIONS = [
    ("accounts", "view_user"),
    ("accounts", "change_user"),  # ban and reinstate; the user admin hides every privilege field
    ("tables", "view_table"),
    ("tables", "change_table"),  # close
    ("tables", "view_seat"),
    ("tables", "change_seat"),  # replace a player with a bot, ban the player on a seat
    ("gameplay", "view_match"),
    ("gameplay", "change_match"),  # abort
    ("gameplay", "view_move"),
    ("gameplay", "view_roundresult"),
]


def add_moderators(apps, schema_editor):
    # Permissions are made after all migrations run; this one needs them now (on a fresh database).
    for label in {app for app, _codename in PERMISSIONS}:
        create_permissions(
            global_apps.get_app_config(label), verbosity=0, using=schema_editor.connection.alias, apps=apps
        )
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=MODERATORS)
    group.permissions.set(
        [
            Permission.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in PERMISSIONS
        ]
    )


def remove_moderators(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=MODERATORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("tables", "0002_seat_taken_over_at"),
        ("gameplay", "0002_turn_clock_and_events"),
    ]

    operations = [migrations.RunPython(add_moderators, remove_moderators)]
