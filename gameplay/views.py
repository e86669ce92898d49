"""The pages that open a table and show its match: a new table, "Play now", the live table, a rematch."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from tables import selectors as table_selectors
from tables import views as table_views
from tables.services import TableError

from . import selectors, services
from .forms import PlayNowForm, TableForm


@login_required
@require_http_methods(["GET", "POST"])
def table_create(request: HttpRequest) -> HttpResponse:
    form = TableForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            table = services.table_create(
                host=request.user,
                game=form.cleaned_data["game"],
                options=form.options(),
                turn_clock=form.cleaned_data["turn_clock"],
                is_private=form.cleaned_data["is_private"],
                fast_bots=form.cleaned_data["fast_bots"],
                rated=form.cleaned_data["rated"],
                pace_hours=form.cleaned_data["pace_hours"],
            )
        except TableError as error:
            form.add_error(None, str(error))
        else:
            return redirect("gameplay:table", table_id=table.pk)
    return render(request, "tables/create.html", {"form": form})


@login_required
@require_POST
def play_now(request: HttpRequest) -> HttpResponse:
    form = PlayNowForm(request.POST)
    if not form.is_valid():
        messages.error(request, form.errors.as_text())
        return redirect("home")
    table = services.play_now(
        user=request.user, game=form.cleaned_data["game"], fast_bots=form.cleaned_data["fast_bots"]
    )
    return redirect("gameplay:table", table_id=table.pk)


def table(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table's page: its match as this person's seat sees it, or the waiting room before it.
    The websocket (``consumers.TableConsumer``) keeps it current."""
    table = table_selectors.table_detail(table_id=table_id)
    if table is None:
        raise Http404
    snapshot = selectors.table_snapshot(table)
    if snapshot is None or not table_selectors.may_watch(table=table, user=request.user):
        return table_views.waiting_room(request, table)  # for a stranger at a private table, its refusal
    screen = selectors.table_screen(snapshot, request.user)
    return render(request, "gameplay/table.html", {"table": table, "screen": screen})


@login_required
@require_POST
def rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        new_table = services.rematch_offer(table_id=table_id, by=request.user)
    except TableError as error:
        messages.error(request, str(error))
        return redirect("gameplay:table", table_id=table_id)
    return redirect("gameplay:table", table_id=new_table.pk)
