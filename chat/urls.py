from django.urls import path

from . import views

app_name = "chat"

urlpatterns = [
    path("report/", views.report, name="report"),
    path("ignore/", views.ignore, name="ignore"),
]
