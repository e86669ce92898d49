"""Pages of playing with people: the pool's waiting page, friends, notices; and the small forms that
send a request, block, invite. Every write goes through ``social.services``."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.services import client_address
from tables.models import Table

from . import selectors, services
from .forms import PoolForm, pool_summary


def back_to_form_page(request: HttpRequest, default: str) -> HttpResponse:
    """Back to the page the form was on (``next``), if it is a path of this site's; else to ``default``."""
    target = request.POST.get("next", "")
    own = target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return HttpResponseRedirect(target if own else default)


def _int(request: HttpRequest, name: str) -> int | None:
    try:
        return int(request.POST[name])
    except (KeyError, ValueError):
        return None


def _person(request: HttpRequest):
    """The person a form names, by id or by username; None if there is none such."""
    people = get_user_model().objects.filter(is_active=True)
    if (person_id := _int(request, "person")) is not None:
        return people.filter(pk=person_id).first()
    username = request.POST.get("username", "").strip()
    if not username or "\x00" in username:  # no name holds a NUL (nor can the database search for one)
        return None
    return people.filter(username__iexact=username).first()


def _still_open(table_id: int | None) -> bool:
    """Whether the table the pool made still has its match to play (or playing)."""
    if table_id is None:
        return False
    status = Table.objects.filter(pk=table_id).values_list("status", flat=True).first()
    return status in Table.NOT_OVER


@login_required
def play(request: HttpRequest) -> HttpResponse:
    """ "Play now with people": the form, or, while the person looks, the waiting page."""
    if request.method == "POST":
        form = PoolForm(request.POST)
        if form.is_valid():
            try:
                services.pool_join(
                    user=request.user,
                    game=form.cleaned_data["game"],
                    players=form.cleaned_data["players"],
                    length=form.length(),
                    fill_with_bots=form.cleaned_data["fill_with_bots"],
                    casual=form.cleaned_data["casual"],
                    address=client_address(request),
                )
            except services.SocialError as error:
                messages.error(request, str(error))
            return redirect("social:play")
    else:
        form = PoolForm()
    entry = selectors.pool_entry_of(user=request.user)
    if entry is not None and entry.table_id is not None:
        services.pool_opened(user=request.user)
        if _still_open(entry.table_id):
            return redirect("gameplay:table", table_id=entry.table_id)
        entry = None
    context = {"form": form, "entry": entry, "bot_fill_seconds": round(settings.POOL_BOT_FILL_SECONDS)}
    if entry is not None:
        context["looking"] = selectors.pool_counts().get(entry.pool, 1)
        context["what"] = pool_summary(entry.game, entry.options, rated=services.pool_rated(entry.pool))
    return render(request, "social/play.html", context)


@login_required
@require_POST
def play_cancel(request: HttpRequest) -> HttpResponse:
    table_id = services.pool_leave(user=request.user)
    if _still_open(table_id):
        messages.info(request, _("Players were found just before you cancelled: here is your table."))
        return redirect("gameplay:table", table_id=table_id)
    return redirect("social:play")


@login_required
@require_GET
def friends(request: HttpRequest) -> HttpResponse:
    user = request.user
    return render(
        request,
        "social/friends.html",
        {
            "friends": selectors.friends_of(user=user),
            "requests_to": selectors.requests_to(user=user),
            "requests_from": selectors.requests_from(user=user),
            "blocked": selectors.blocked_by(user=user),
        },
    )


def _run(request: HttpRequest, change, default: str = "social:friends") -> HttpResponse:
    """Run a social change; what it says, or why it was refused, becomes a message on the page."""
    try:
        said = change()
    except services.SocialError as error:
        messages.error(request, str(error))
    else:
        if said:
            messages.success(request, said)
    return back_to_form_page(request, reverse(default))


@login_required
@require_POST
def friend_request(request: HttpRequest) -> HttpResponse:
    return _run(
        request,
        lambda: services.friend_request_send(
            sender=request.user, recipient=_person(request), address=client_address(request)
        ),
    )


@login_required
@require_POST
def friend_answer(request: HttpRequest) -> HttpResponse:
    accept = request.POST.get("answer") == "accept"
    return _run(
        request,
        lambda: services.friend_request_answer(
            user=request.user, sender_id=_int(request, "person"), accept=accept
        ),
    )


@login_required
@require_POST
def friend_withdraw(request: HttpRequest) -> HttpResponse:
    return _run(
        request,
        lambda: services.friend_request_withdraw(user=request.user, recipient_id=_int(request, "person")),
    )


@login_required
@require_POST
def friend_remove(request: HttpRequest) -> HttpResponse:
    return _run(request, lambda: services.friend_remove(user=request.user, friend_id=_int(request, "person")))


@login_required
@require_POST
def block(request: HttpRequest) -> HttpResponse:
    return _run(request, lambda: services.block(user=request.user, other=_person(request)))


@login_required
@require_POST
def unblock(request: HttpRequest) -> HttpResponse:
    return _run(request, lambda: services.unblock(user=request.user, other_id=_int(request, "person")))


@login_required
@require_POST
def invite(request: HttpRequest, table_id: int) -> HttpResponse:
    return _run(
        request,
        lambda: services.invitation_send(
            by=request.user,
            table_id=table_id,
            friend_id=_int(request, "person"),
            address=client_address(request),
        ),
        default="social:friends",
    )


@login_required
@require_GET
def notices(request: HttpRequest) -> HttpResponse:
    """The bell's page: every recent notice; opening it marks them read."""
    listed = selectors.notices_of(user=request.user)
    services.notices_read(user=request.user)
    return render(request, "social/notices.html", {"notices": listed})


@login_required
@require_POST
def notice_join(request: HttpRequest, notice_id: int) -> HttpResponse:
    try:
        table_id = services.invitation_accept(user=request.user, notice_id=notice_id)
    except services.SocialError as error:
        messages.error(request, str(error))
        return back_to_form_page(request, reverse("social:notices"))
    return redirect("gameplay:table", table_id=table_id)


@login_required
@require_POST
def notice_close(request: HttpRequest, notice_id: int) -> HttpResponse:
    services.notice_close(user=request.user, notice_id=notice_id)
    return back_to_form_page(request, reverse("social:notices"))
