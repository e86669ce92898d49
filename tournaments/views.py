"""The tournaments' pages: the list (with the form that makes a private tournament) and a tournament's
page with its buttons. Reads go through ``selectors``, every write through ``services``, whose budgets
limit each button; a refusal's text becomes a message on the page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.services import client_address

from . import selectors, services
from .forms import PrivateTournamentForm
from .models import Tournament


def _list_page(request: HttpRequest, form: PrivateTournamentForm) -> HttpResponse:
    lists = selectors.tournament_lists(viewer=request.user)
    return render(request, "tournaments/list.html", {"lists": lists, "form": form})


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    return _list_page(request, PrivateTournamentForm())


@login_required
@require_POST
def tournament_create(request: HttpRequest) -> HttpResponse:
    """A private tournament made from the form; its page (with the link to share) once made."""
    form = PrivateTournamentForm(request.POST)
    if not form.is_valid():
        return _list_page(request, form)
    data = form.cleaned_data
    try:
        tournament = services.tournament_create_private(
            by=request.user,
            name=data["name"],
            kind=data["kind"],
            game=data["game"],
            players=data["players"],
            options=form.options(),
            turn_clock=data["turn_clock"],
            starts_in_minutes=data["starts_in_minutes"],
            minutes=form.length(),
            rounds=data["rounds"],
            address=client_address(request),
        )
    except services.TournamentError as error:
        messages.error(request, str(error))
        return _list_page(request, form)
    return redirect(services.tournament_url(tournament))


@require_GET
def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    token = request.GET.get("token", "")
    tournament = selectors.tournament_shown(tournament_id=tournament_id, viewer=request.user, token=token)
    if tournament is None:
        raise Http404
    context = selectors.page_context(tournament=tournament, viewer=request.user)
    context["token"] = token
    if tournament.is_private and tournament.created_by_id == request.user.pk:
        link = f"{services.tournament_url(tournament)}?{urlencode({'token': tournament.join_token})}"
        context["join_link"] = request.build_absolute_uri(link)
    return render(request, "tournaments/detail.html", context)


def _back_to_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The tournament's page again, its link's token kept (a refused stranger still sees the page)."""
    url = reverse("tournaments:detail", args=[tournament_id])
    if token := request.POST.get("token", ""):
        url = f"{url}?{urlencode({'token': token})}"
    return redirect(url)


@login_required
@require_POST
def tournament_join(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Join, or come back after a pause."""
    try:
        entry = services.tournament_join(
            user=request.user,
            tournament_id=tournament_id,
            token=request.POST.get("token", ""),
            address=client_address(request),
        )
    except services.TournamentError as error:
        messages.error(request, str(error))
    else:
        if entry.tournament.status == Tournament.Status.RUNNING:
            messages.success(request, _("You are playing: a table will open by itself."))
        else:
            messages.success(request, _("You joined the tournament."))
    return _back_to_page(request, tournament_id)


@login_required
@require_POST
def tournament_leave(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Withdraw before the start; once it runs, pause (points kept, no new table until coming back)."""
    try:
        entry = services.tournament_withdraw(
            user=request.user, tournament_id=tournament_id, address=client_address(request)
        )
    except services.TournamentError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            _("You left the tournament.")
            if entry is None
            else _("Paused: you keep your points and get no new table until you come back."),
        )
    return _back_to_page(request, tournament_id)
