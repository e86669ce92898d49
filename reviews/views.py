"""Asking for a review of one's own seat, and the panel that shows its progress and then its marks."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.services import client_address
from gameplay.models import Match

from . import selectors, services


@login_required
@require_POST
def ask(request: HttpRequest, match_id: int) -> HttpResponse:
    """Queue the review of the person's seat (spending their daily budget), then back to the match page,
    whose panel shows its progress."""
    try:
        services.request_review(user=request.user, match_id=match_id, address=client_address(request))
    except services.ReviewError as error:
        messages.error(request, str(error))
    return redirect(reverse("history:match", args=[match_id]) + "#review")


@login_required
@require_GET
def panel(request: HttpRequest, match_id: int) -> HttpResponse:
    """The review panel alone: what the match page polls while the review is judged."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or selectors.seat_of(match, request.user) is None:
        raise Http404
    return render(request, "reviews/_panel.html", selectors.panel_context(match, request.user))
