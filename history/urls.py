from django.urls import path

from . import views

app_name = "history"

urlpatterns = [
    path("matches/", views.my_matches, name="mine"),
    path("matches/<int:match_id>/", views.match_page, name="match"),
    path("matches/<int:match_id>/sheet.csv", views.sheet_download, name="sheet_csv"),
    path("matches/<int:match_id>/replay/", views.replay, name="replay"),
    path("players/<str:username>/", views.player_profile, name="player"),
]
