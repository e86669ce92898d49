from django.urls import path

from . import views

app_name = "gameplay"

urlpatterns = [
    path("new/", views.table_create, name="table_create"),
    path("play-now/", views.play_now, name="play_now"),
    path("<int:table_id>/", views.table, name="table"),
    path("<int:table_id>/rematch/", views.rematch, name="rematch"),
    path("your-turn/", views.your_turn, name="your_turn"),
    path("your-turn/holiday/", views.holiday_take, name="holiday_take"),
    path("your-turn/holiday/end/", views.holiday_stop, name="holiday_end"),
]
