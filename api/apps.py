from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    """The public HTTP API (``/api/v1/``): personal access tokens with scopes, what a person may read
    and do from a program, and the seat stream through which bot accounts play."""

    name = "api"
    verbose_name = _("API")
