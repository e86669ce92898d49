from django.urls import path

from . import views

app_name = "social"

urlpatterns = [
    path("play/", views.play, name="play"),
    path("play/cancel/", views.play_cancel, name="play_cancel"),
    path("friends/", views.friends, name="friends"),
    path("friends/request/", views.friend_request, name="friend_request"),
    path("friends/answer/", views.friend_answer, name="friend_answer"),
    path("friends/withdraw/", views.friend_withdraw, name="friend_withdraw"),
    path("friends/remove/", views.friend_remove, name="friend_remove"),
    path("friends/block/", views.block, name="block"),
    path("friends/unblock/", views.unblock, name="unblock"),
    path("tables/<int:table_id>/invite/", views.invite, name="invite"),
    path("notices/", views.notices, name="notices"),
    path("notices/<int:notice_id>/join/", views.notice_join, name="notice_join"),
    path("notices/<int:notice_id>/close/", views.notice_close, name="notice_close"),
]
