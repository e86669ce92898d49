from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    """The table chat: quick phrases and free text at every table, over the table's own socket, and
    what moderators need to keep it clean (reports, suspensions, a word list)."""

    name = "chat"
    verbose_name = _("Table chat")
