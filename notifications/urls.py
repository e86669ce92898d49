from django.urls import path

from . import views

app_name = "notifications"

urlpatterns = [
    path("", views.settings_page, name="settings"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
