from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PrivacyConfig(AppConfig):
    """A person's own data: the download of everything kept about them, closing the account, the
    privacy page, and the job that deletes what the page says is deleted."""

    name = "privacy"
    verbose_name = _("Personal data")
