from django.urls import path

from . import views

app_name = "reviews"

urlpatterns = [
    path("matches/<int:match_id>/review/", views.ask, name="ask"),
    path("matches/<int:match_id>/review/panel/", views.panel, name="panel"),
]
