"""Moderators read who looks in the pools, friend requests, blocks and notices (abuse: request and invitation spam, a pairing dodged); they change none of them."""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.db import migrations

MODERATORS = "Moderators"
PERMISSIONS = ["view_poolentry", "view_friendrequest", "view_block", "view_notice"]


def grant(apps, schema_editor):
    create_permissions(
        global_apps.get_app_config("social"), verbosity=0, using=schema_editor.connection.alias, apps=apps
    )
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=MODERATORS)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="social", codename__in=PERMISSIONS)
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for group in Group.objects.filter(name=MODERATORS):
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="social", codename__in=PERMISSIONS)
        )


class Migration(migrations.Migration):
    dependencies = [("social", "0001_initial"), ("accounts", "0002_moderators_group")]

    operations = [migrations.RunPython(grant, revoke)]
