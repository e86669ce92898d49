from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.selectors import bot_account_named

from . import selectors, services
from .forms import BotAccountForm, BotForm
from .models import Game, Table


def home(request: HttpRequest) -> HttpResponse:
    """The front page: the two games, "Play now", and the tables waiting for players."""
    context = {"tables": selectors.with_seat_notes(selectors.open_tables()[:8])}
    if request.user.is_authenticated:
        context["my_tables"] = selectors.with_seat_notes(selectors.tables_of(user=request.user))
    return render(request, "home.html", context)


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    """Open tables, newest first, filterable by game; htmx asks for just the list."""
    game = request.GET.get("game") if request.GET.get("game") in Game.values else ""
    context = {
        "tables": selectors.with_seat_notes(selectors.open_tables(game=game or None)),
        "game": game,
        "games": Game.choices,
    }
    if request.user.is_authenticated:
        context["my_tables"] = selectors.with_seat_notes(selectors.tables_of(user=request.user))
    template = "tables/lobby.html#table-list" if request.htmx else "tables/lobby.html"
    return render(request, template, context)


def waiting_room(request: HttpRequest, table: Table) -> HttpResponse:
    """The table before its match: who sits where, bots, the invitation link. ``table`` comes from
    ``selectors.table_detail``. A private table shows only to its players (and staff)."""
    seat = selectors.seat_of(table=table, user=request.user)
    context = {
        "table": table,
        "my_seat": seat,
        "seats": selectors.seat_choices(table=table, user=request.user),
        "casual_if_seated": selectors.casual_if_seated(table=table, user=request.user),
        "bot_form": BotForm(),
        "invite_url": request.build_absolute_uri(reverse("tables:invitation", args=[table.invite_token])),
    }
    if not selectors.may_watch(table=table, user=request.user):
        return render(request, "tables/private.html", context, status=403)
    return render(request, "tables/detail.html", context)


def _seat_change(request: HttpRequest, table_id: int, change) -> HttpResponse:
    """Run a seat change; a refusal becomes a message on the table page, never an error page."""
    try:
        change()
    except services.TableError as error:
        messages.error(request, str(error))
    return redirect("gameplay:table", table_id=table_id)


def _position(request: HttpRequest) -> int | None:
    try:
        return int(request.POST["position"])
    except (KeyError, ValueError):
        return None


@login_required
@require_POST
def seat_take(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_change(
        request,
        table_id,
        lambda: services.seat_take(table_id=table_id, user=request.user, position=_position(request)),
    )


@login_required
@require_POST
def seat_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        services.seat_leave(table_id=table_id, user=request.user)
    except services.TableError as error:
        messages.error(request, str(error))
        return redirect("gameplay:table", table_id=table_id)
    return redirect("tables:lobby")


@login_required
@require_POST
def bot_add(request: HttpRequest, table_id: int) -> HttpResponse:
    form = BotForm(request.POST)
    level = form.cleaned_data["level"] if form.is_valid() else ""
    return _seat_change(
        request,
        table_id,
        lambda: services.bot_add(
            table_id=table_id, by=request.user, position=_position(request), level=level
        ),
    )


@login_required
@require_POST
def bot_account_seat(request: HttpRequest, table_id: int) -> HttpResponse:
    """The host seats a bot account by its name: their own sits down, another's is kept a seat."""

    form = BotAccountForm(request.POST)

    def seat() -> None:
        bot = bot_account_named(form.cleaned_data["username"]) if form.is_valid() else None
        if bot is None:
            raise services.TableError(_("There is no bot account of that name."))
        services.seat_bot_account(
            table_id=table_id, by=request.user, bot_user=bot, position=_position(request)
        )

    return _seat_change(request, table_id, seat)


@login_required
@require_POST
def bot_remove(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_change(
        request,
        table_id,
        lambda: services.bot_remove(table_id=table_id, by=request.user, position=_position(request)),
    )


@login_required
@require_POST
def player_kick(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_change(
        request,
        table_id,
        lambda: services.player_kick(table_id=table_id, by=request.user, position=_position(request)),
    )


@login_required
@require_GET
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """Opening a private table's link seats the visitor if a seat is free."""
    table = Table.objects.filter(invite_token=token).first()
    if table is None:
        raise Http404
    try:
        services.invitation_accept(token=token, user=request.user)
    except services.TableError as error:
        messages.error(request, str(error))
        if table.is_private and selectors.seat_of(table=table, user=request.user) is None:
            return redirect("tables:lobby")
    return redirect("gameplay:table", table_id=table.pk)
