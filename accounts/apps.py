from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    """Players' accounts: registration, login, passwords and profiles."""

    name = "accounts"
    verbose_name = _("Accounts")
