from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", consumers.ChatTableConsumer.as_asgi()),
]
