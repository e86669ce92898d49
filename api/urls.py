from django.urls import path

from . import views

app_name = "api"

urlpatterns = [
    path("", views.guide, name="guide"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
]
