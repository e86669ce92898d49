from django.urls import path

from . import views

app_name = "gameplay"

urlpatterns = [
    path("new/", views.table_create, name="table_create"),
    path("play-now/", views.play_now, name="play_now"),
    path("<int:table_id>/", views.table, name="table"),
    path("<int:table_id>/rematch/", views.rematch, name="rematch"),
]
