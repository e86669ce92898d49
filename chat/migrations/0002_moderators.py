"""Moderators keep the chat clean: they read the messages, the suspensions and the record, decide the
reports, keep the word list, and hold ``moderate_chat`` (warn, suspend, remove, ban, dismiss); nothing
more (every write goes through ``chat.services``)."""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATORS = "Moderators"
PERMISSIONS = [
    "view_chatmessage",
    "view_report",
    "change_report",  # decide a report (the form writes nothing itself)
    "view_suspension",
    "view_moderationaction",
    "view_bannedword",
    "add_bannedword",
    "delete_bannedword",
    "moderate_chat",
]


def grant(apps, schema_editor):
    # Permissions are made after all migrations run; this one needs them now (on a fresh database).
    create_permissions(
        global_apps.get_app_config("chat"), verbosity=0, using=schema_editor.connection.alias, apps=apps
    )
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=MODERATORS)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="chat", codename__in=PERMISSIONS)
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for group in Group.objects.filter(name=MODERATORS):
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="chat", codename__in=PERMISSIONS)
        )


class Migration(migrations.Migration):
    dependencies = [("chat", "0001_initial"), ("accounts", "0002_moderators_group")]

    operations = [migrations.RunPython(grant, revoke)]
