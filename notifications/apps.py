from django.apps import AppConfig, apps
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    """What a person is told when they are not looking, and how: one place that hears the apps below
    (a turn at a table at its own pace, an invitation, a friend request, a tournament starting, a
    moderator's warning) and decides, by the person's settings, between the site, web push and email."""

    name = "notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from gameplay import signals as gameplay
        from social import signals as social

        from . import receivers

        gameplay.pace_turn.connect(receivers.pace_turn, dispatch_uid="notifications.pace_turn")
        gameplay.pace_stood_in.connect(receivers.pace_stood_in, dispatch_uid="notifications.pace_stood_in")
        gameplay.match_finished.connect(receivers.match_finished, dispatch_uid="notifications.match_finished")
        social.notice_kept.connect(receivers.notice_kept, dispatch_uid="notifications.notice_kept")
        user_logged_in.connect(receivers.logged_in, dispatch_uid="notifications.logged_in")
        if apps.is_installed("chat"):
            from chat import signals as chat

            chat.person_warned.connect(receivers.person_warned, dispatch_uid="notifications.person_warned")
