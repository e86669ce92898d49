"""The leaderboards and what a match did to the ratings (the match-over sheet asks for it)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from gameplay.models import Match
from tables.models import Game
from tables.selectors import may_watch

from . import selectors


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    """One game's leaderboard, 100 a page, with the reader's own place wherever it is: the people's,
    or (``?board=bots``) the bot accounts'."""
    game = request.GET.get("game") if request.GET.get("game") in Game.values else Game.AMERICANA
    bots = request.GET.get("board") == "bots"
    board = selectors.leaderboard(game=game, page=request.GET.get("page"), viewer=request.user, bots=bots)
    context = {
        "board": board,
        "game": game,
        "games": Game.choices,
        "board_query": "&board=bots" if bots else "",
    }
    return render(request, "ratings/leaderboard.html", context)


@require_GET
def match_changes(request: HttpRequest, match_id: int) -> HttpResponse:
    """The ratings a match moved, as the match-over sheet shows them; while the update has yet to land,
    the fragment asks again by itself. Whoever may watch the table may read it."""
    match = get_object_or_404(Match.objects.select_related("table"), pk=match_id, practice=False)
    if not may_watch(table=match.table, user=request.user):
        return HttpResponse(status=403)
    rating = selectors.match_rating(match) if match.status == Match.Status.FINISHED else None
    return render(request, "ratings/_match_changes.html", {"match": match, "rating": rating})
