from django.urls import path

from . import push_views, views

app_name = "notifications"

urlpatterns = [
    path("", views.settings_page, name="settings"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("push-worker.js", push_views.worker, name="push-worker"),
    path("push/subscribe/", push_views.subscribe, name="push-subscribe"),
    path("push/unsubscribe/", push_views.unsubscribe, name="push-unsubscribe"),
]
