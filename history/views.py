"""Looking back: my matches, a match's score sheet (page and CSV), its replay, a player's profile."""

import math

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from accounts.limits import spend
from gameplay.models import Match
from ratings import selectors as rating_selectors
from reviews import selectors as review_selectors
from tables.models import Game

from . import selectors
from .export import sheet_csv

PAGE_SIZE = 20


def _match_chat(request: HttpRequest, match: Match) -> dict:
    """The match's chat for this reader (its players and moderators only: for anyone else the page
    says nothing of it, not even that there was one; nor for anyone when the chat is left out,
    ``CHAT_ENABLED``)."""
    if not apps.is_installed("chat"):
        return {"chat_readable": False}
    from chat import selectors as chat_selectors
    from chat.models import Report

    lines = chat_selectors.match_lines(match=match, user=request.user)
    return {
        "chat_readable": lines is not None,
        "chat_lines": lines or [],
        "chat_reasons": Report.Reason.choices,
    }


def _viewable_match(request: HttpRequest, match_id: int) -> tuple[Match | None, HttpResponse | None]:
    """The match if this visitor may see it; otherwise the page that says why (404 or 403)."""
    match = selectors.match_detail(match_id=match_id)
    if match is None:
        raise Http404
    if not selectors.can_view(match=match, user=request.user):
        return None, render(request, "history/private.html", {"match": match}, status=403)
    return match, None


@login_required
@require_GET
def my_matches(request: HttpRequest) -> HttpResponse:
    """Every match the player took part in, newest first, filtered by game and by how it went for them."""
    game = request.GET.get("game") if request.GET.get("game") in Game.values else ""
    outcome = request.GET.get("result") if request.GET.get("result") in selectors.OUTCOMES else ""
    matches = selectors.matches_of(user=request.user, game=game or None, outcome=outcome or None)
    page = Paginator(matches, PAGE_SIZE).get_page(request.GET.get("page"))
    query = "&".join(f"{key}={value}" for key, value in (("game", game), ("result", outcome)) if value)
    context = {
        "page": page,
        "rows": selectors.match_rows(page.object_list, user=request.user),
        "game": game,
        "outcome": outcome,
        "games": Game.choices,
        "outcomes": [(value, selectors.outcome_label(value)) for value in selectors.OUTCOMES],
        "query": query,
    }
    return render(request, "history/my_matches.html", context)


@login_required
@require_GET
def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    match, refusal = _viewable_match(request, match_id)
    if refusal:
        return refusal
    sheet = selectors.score_sheet(match)
    seat = selectors.seat_of(match, request.user)
    context = {
        "match": match,
        "sheet": sheet,
        "my_outcome": selectors.outcome_label(selectors.outcome_of(match, seat)) if seat is not None else "",
        "seat_holders": selectors.seat_holders(match),
        "replayable": selectors.replayable(match),
        "rating": rating_selectors.match_rating(match),
        **_match_chat(request, match),
        **(review_selectors.panel_context(match, request.user) if seat is not None else {}),
    }
    return render(request, "history/match.html", context)


@login_required
@require_GET
def sheet_download(request: HttpRequest, match_id: int) -> HttpResponse:
    match, refusal = _viewable_match(request, match_id)
    if refusal:
        return refusal
    response = HttpResponse(sheet_csv(selectors.score_sheet(match)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="septica-match-{match.pk}.csv"'
    return response


@login_required
@require_GET
def replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """One step of a finished match's replay; htmx asks for the step alone."""
    match, refusal = _viewable_match(request, match_id)
    if refusal:
        return refusal
    if not selectors.replayable(match):
        return render(request, "history/replay_live.html", {"match": match}, status=403)
    burst = settings.REPLAY_STEPS_BURST
    cost = min(selectors.replay_cost(match), burst)  # the longest first step still fits the budget
    wait = spend(f"replay:{request.user.pk}", rate=settings.REPLAY_STEPS_PER_SECOND, burst=burst, cost=cost)
    if wait:
        return _too_fast(request, match, wait)
    try:
        index = int(request.GET.get("step", 0))
    except ValueError:
        index = 0
    try:
        step = selectors.replay_step(match, index)
    except selectors.ReplayUnavailable:
        return render(request, "history/replay_unavailable.html", {"match": match}, status=409)
    review = review_selectors.own_review(match, request.user) if step.kind == "move" else None
    shown = {"match": match, "step": step, "mark": review_selectors.mark_at(review, step.made)}
    # Going back through history asks for the whole page again, not the step alone.
    alone = request.htmx and not request.htmx.history_restore_request
    if alone:
        return render(request, "history/replay.html#step", shown)
    context = shown | {"rating": rating_selectors.match_rating(match)}
    return render(request, "history/replay.html", context | _match_chat(request, match))


def _too_fast(request: HttpRequest, match: Match, wait: float) -> HttpResponse:
    """429: steps asked for faster than anyone watches them. htmx shows why in the step's notice line,
    leaving the step on screen and the address as they are; Play tries again at its own pace."""
    seconds = math.ceil(wait)
    template = "history/replay_too_fast.html#why" if request.htmx else "history/replay_too_fast.html"
    response = render(request, template, {"match": match, "seconds": seconds}, status=429)
    response["Retry-After"] = str(seconds)
    if request.htmx:
        response["HX-Retarget"] = "#replay-notice"
        response["HX-Reswap"] = "innerHTML"
        response["HX-Push-Url"] = "false"
    return response


@login_required
@require_GET
def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(get_user_model(), username=username, erased_at__isnull=True)
    profile = selectors.player_profile(player=player, viewer=request.user)
    return render(request, "history/player.html", {"profile": profile})
