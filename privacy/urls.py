from django.urls import path

from . import views

app_name = "privacy"

urlpatterns = [
    path("privacy/", views.policy, name="policy"),
    path("accounts/data/", views.data, name="data"),
    path("accounts/data/prepare/", views.export_request, name="export"),
    path("accounts/data/<int:export_id>/download/", views.export_download, name="download"),
    path("accounts/close/", views.close, name="close"),
    path("accounts/bots/<int:bot_id>/close/", views.bot_account_close, name="bot_account_close"),
]
