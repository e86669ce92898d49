from django.urls import path

from . import views

app_name = "practice"

urlpatterns = [
    path("", views.play, name="play"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("me/", views.me, name="me"),
    path("save/", views.save, name="save"),
]
