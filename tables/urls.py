from django.urls import path

from . import views

app_name = "tables"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("join/<str:token>/", views.invitation, name="invitation"),
    path("<int:table_id>/sit/", views.seat_take, name="sit"),
    path("<int:table_id>/leave/", views.seat_leave, name="leave"),
    path("<int:table_id>/bot/", views.bot_add, name="bot_add"),
    path("<int:table_id>/bot/remove/", views.bot_remove, name="bot_remove"),
    path("<int:table_id>/bot-account/", views.bot_account_seat, name="bot_account_seat"),
    path("<int:table_id>/kick/", views.player_kick, name="kick"),
]
