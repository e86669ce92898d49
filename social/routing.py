from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/me/", consumers.SiteConsumer.as_asgi()),
]
