from django.urls import path

from . import views

app_name = "ratings"

urlpatterns = [
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("matches/<int:match_id>/ratings/", views.match_changes, name="match_changes"),
]
