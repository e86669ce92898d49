from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    """The front page: the two games and how to start playing."""
    return render(request, "home.html")
