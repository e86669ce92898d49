"""The pages that open a table and show its match: a new table, "Play now", the live table, a rematch;
and a person's matches at their own pace ("Your turn") with their holiday."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.services import client_address
from tables import selectors as table_selectors
from tables import views as table_views
from tables.services import TableError

from . import selectors, services
from .forms import HolidayForm, PlayNowForm, TableForm


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
    context = {"table": table, "screen": screen, "pace_news": _pace_news(request, snapshot)}
    return render(request, "gameplay/table.html", context)


def _pace_news(request: HttpRequest, snapshot: selectors.TableSnapshot) -> selectors.PaceNews | None:
    """At a table at own pace, the moves made since the person's previous visit; this visit is noted
    as seen (and so is the rest of it, when their last page of the table closes)."""
    user = request.user
    seat = snapshot.positions.get(user.pk) if snapshot.table.is_own_pace and user.is_authenticated else None
    if seat is None:
        return None
    made = snapshot.match.moves_made
    seen = services.pace_seen(table_id=snapshot.table.pk, user_id=user.pk, moves=made)
    if seen is None or seen >= made:
        return None
    return selectors.pace_news(snapshot, seat, seen=seen)


@login_required
@require_POST
def rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        new_table = services.rematch_offer(table_id=table_id, by=request.user)
    except TableError as error:
        messages.error(request, str(error))
        return redirect("gameplay:table", table_id=table_id)
    return redirect("gameplay:table", table_id=new_table.pk)


@login_required
@require_GET
def your_turn(request: HttpRequest) -> HttpResponse:
    """The person's matches at their own pace, the ones waiting for their move first, and their holiday."""
    return _your_turn_page(request, HolidayForm())


def _your_turn_page(request: HttpRequest, form: HolidayForm, status: int = 200) -> HttpResponse:
    user_id = request.user.pk
    tables = selectors.pace_tables(request.user)
    context = {
        "tables": tables,
        "playing": len(tables),
        "cap": settings.OWN_PACE_MATCHES_MAX,
        "holiday": services.holiday_now(user_id),
        "days_left": services.holiday_days_left(user_id),
        "form": form,
    }
    return render(request, "gameplay/your_turn.html", context, status=status)


@login_required
@require_POST
def holiday_take(request: HttpRequest) -> HttpResponse:
    form = HolidayForm(request.POST)
    if form.is_valid():
        try:
            services.holiday_start(
                user=request.user, days=form.cleaned_data["days"], address=client_address(request)
            )
        except services.PaceError as error:
            form.add_error("days", str(error))
        else:
            messages.success(request, _("Your holiday has begun: your clocks stand still until it ends."))
            return redirect("gameplay:your_turn")
    return _your_turn_page(request, form, status=400)


@login_required
@require_POST
def holiday_stop(request: HttpRequest) -> HttpResponse:
    try:
        ended = services.holiday_end(user=request.user, address=client_address(request))
    except services.PaceError as error:
        messages.error(request, str(error))
    else:
        if ended:
            messages.success(request, _("Welcome back: your clocks run again."))
    return redirect("gameplay:your_turn")
