from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    """The table chat: quick phrases and free text at every table, over the table's own socket, and
    what moderators need to keep it clean (reports, suspensions, a word list)."""

    name = "chat"
    verbose_name = _("Table chat")

    def ready(self) -> None:
        from gameplay.socket_parts import register
        from social.models import Block
        from social.signals import block_changed

        from .consumers import TableChat
        from .events import standing_changed

        register(TableChat)  # the chat's frames and news on every table page's socket

        def show_anew(sender, user_ids, **kwargs) -> None:
            for user_id in user_ids:
                standing_changed(user_id)

        block_changed.connect(show_anew, sender=Block, weak=False, dispatch_uid="chat.block_changed")
