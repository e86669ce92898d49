from django.apps import apps
from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from api.v1 import api as api_v1
from config import health, metrics
from tables.views import home

admin.site.site_header = _("Șeptică administration")
admin.site.site_title = _("Șeptică admin")

urlpatterns = [
    path("", home, name="home"),
    path("accounts/", include("accounts.urls")),
    path("tables/", include("tables.urls")),
    path("tables/", include("gameplay.urls")),
    path("", include("history.urls")),
    path("", include("reviews.urls")),
    path("", include("ratings.urls")),
    path("", include("social.urls")),
    path("practice/", include("practice.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("", include("privacy.urls")),
    path("notifications/", include("notifications.urls")),
    path("data/", include("opendata.urls")),
    path("api/v1/", api_v1.urls),
    path("api/", include("api.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
    path("metrics", metrics.metrics, name="metrics"),
]

if apps.is_installed("chat"):  # the chat may be left out (``CHAT_ENABLED``)
    urlpatterns.append(path("chat/", include("chat.urls")))
