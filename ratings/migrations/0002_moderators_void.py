"""Moderators read the ratings and void a match's rating; nothing else of them."""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATORS = "Moderators"
PERMISSIONS = ["view_rating", "view_ratingchange", "view_ratedmatch", "void_ratedmatch"]


def grant(apps, schema_editor):
    create_permissions(
        global_apps.get_app_config("ratings"), verbosity=0, using=schema_editor.connection.alias, apps=apps
    )
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=MODERATORS)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="ratings", codename__in=PERMISSIONS)
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for group in Group.objects.filter(name=MODERATORS):
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="ratings", codename__in=PERMISSIONS)
        )


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_initial"), ("accounts", "0002_moderators_group")]

    operations = [migrations.RunPython(grant, revoke)]
