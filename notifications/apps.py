from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    """What a person is told when they are not looking, and how: one place that hears the apps below
    (a turn at a table at its own pace, an invitation, a friend request, a tournament starting, a
    moderator's warning) and decides, by the person's settings, between the site, web push and email."""

    name = "notifications"
    verbose_name = _("Notifications")
