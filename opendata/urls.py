from django.urls import path

from . import views

app_name = "opendata"

urlpatterns = [
    path("", views.index, name="index"),
    path("schema/", views.schema, name="schema"),
    path("files/<str:name>", views.download, name="file"),
]
