"""Reads of the ratings: what a seat's person is rated, what a match changed, a person's ratings with
their history, and the leaderboards."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from gameplay.models import Match
from tables.models import Game

from . import model
from .eligible import first_holders, rated_seats
from .models import Rating, RatingChange

BOARD_PAGE = 100
BOARD_ACTIVE_DAYS = 30
"""The leaderboards list established players who played a rated match within this many days."""


def label(*, shown: int, established: bool) -> str:
    """The rating as it reads: "1534", or "1500?" while provisional."""
    return f"{shown}" if established else f"{shown}?"


def seat_ratings(sender, *, tables, **kwargs) -> dict[tuple[int, int], str]:
    """``tables.signals.seat_notes``' receiver: each seated person's rating in the table's game,
    for a whole list of tables in one query; a person with no rated match yet reads "1500?"."""
    wanted = {(seat.user_id, table.game) for table in tables for seat in table.seats.all() if seat.user_id}
    if not wanted:
        return {}
    rows = Rating.objects.filter(
        user_id__in={user_id for user_id, _game in wanted}, game__in={game for _user, game in wanted}
    ).values_list("user_id", "game", "shown", "established")
    known = {
        (user_id, game): label(shown=shown, established=established)
        for user_id, game, shown, established in rows
    }
    newcomer = label(shown=model.SHOWN_AT_START, established=False)
    return {
        (table.pk, seat.user_id): known.get((seat.user_id, table.game), newcomer)
        for table in tables
        for seat in table.seats.all()
        if seat.user_id
    }


@dataclass(frozen=True)
class SeatChange:
    """What a rated match did to one seat's person."""

    seat: int
    name: str
    change: int
    after: int
    established: bool
    left: bool
    voided: bool
    bot_account: bool = False
    """A bot account's seat (a match rated on the bots' leaderboard), marked as one."""

    @property
    def label(self) -> str:
        return label(shown=self.after, established=self.established)


@dataclass(frozen=True)
class MatchRating:
    """Whether a match moves the ratings, and what it did once it has."""

    rated: bool
    """The match is at a rated table and every seat started with a person."""
    changes: list[SeatChange] = field(default_factory=list)
    voided: bool = False

    @property
    def pending(self) -> bool:
        return self.rated and not self.changes


def match_rating(match: Match) -> MatchRating:
    """What ``match`` did to its people's ratings (``pending`` while the update has yet to land)."""
    changes = list(RatingChange.objects.filter(match=match).select_related("user").order_by("seat"))
    if not changes:
        holders = first_holders([match.pk]).get(match.pk, {})
        return MatchRating(rated=rated_seats(match, holders) is not None)
    return MatchRating(
        rated=True,
        changes=[
            SeatChange(
                seat=row.seat,
                name=row.user.public_name,
                bot_account=row.user.is_bot_account,
                change=row.change,
                after=row.after,
                established=row.established,
                left=row.left,
                voided=row.voided,
            )
            for row in changes
        ],
        voided=changes[0].voided,
    )


def changes_of(*, user, match_ids: list[int]) -> dict[int, RatingChange]:
    """The person's rating change in each of these matches that has one."""
    rows = RatingChange.objects.filter(user=user, match_id__in=match_ids)
    return {row.match_id: row for row in rows}


# --- A person's ratings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    at: object
    rating: int


@dataclass(frozen=True)
class GameRating:
    game: str
    game_label: str
    rating: Rating | None
    place: int | None
    points: list[Point]

    @property
    def label(self) -> str:
        if self.rating is None:
            return label(shown=model.SHOWN_AT_START, established=False)
        return label(shown=self.rating.shown, established=self.rating.established)


def ratings_of(*, user) -> list[GameRating]:
    """The person's rating in each game with its history (every change that stands, oldest first)
    and their place on the leaderboard (None when not on it): three queries whatever the history."""
    ratings = {row.game: row for row in Rating.objects.filter(user=user)}
    history: dict[str, list[Point]] = defaultdict(list)
    for game, at, after in (
        RatingChange.objects.filter(user=user, voided=False)
        .order_by("at", "pk")
        .values_list("game", "at", "after")
    ):
        history[game].append(Point(at=at, rating=after))
    places = _places(ratings.values(), bots=user.is_bot_account)
    return [
        GameRating(
            game=game,
            game_label=game_label,
            rating=ratings.get(game),
            place=places.get(game),
            points=history[game],
        )
        for game, game_label in Game.choices
    ]


def _on_board(game: str | None = None, *, bots: bool = False) -> QuerySet[Rating]:
    """The ratings a leaderboard lists: established, played within the last 30 days, not banned; the
    people's, or (``bots``) the bot accounts' of their own leaderboard."""
    since = timezone.now() - timedelta(days=BOARD_ACTIVE_DAYS)
    board = Rating.objects.filter(
        established=True, last_played_at__gte=since, user__is_active=True, user__is_bot_account=bots
    )
    return board.filter(game=game) if game else board


def _ahead_of(row: Rating) -> Q:
    """Those ranked above ``row``: a higher rating, or the same one and an earlier person."""
    return Q(shown__gt=row.shown) | Q(shown=row.shown, user_id__lt=row.user_id)


def _places(ratings, *, bots: bool) -> dict[str, int]:
    """The place on each game's leaderboard of one person's ratings (a bot account's on the bots'):
    one query for every game."""
    on_board = set(
        _on_board(bots=bots).filter(pk__in=[row.pk for row in ratings]).values_list("pk", flat=True)
    )
    mine = [row for row in ratings if row.pk in on_board]
    if not mine:
        return {}
    ahead = _on_board(bots=bots).aggregate(
        **{row.game: Count("pk", filter=Q(game=row.game) & _ahead_of(row)) for row in mine}
    )
    return {row.game: ahead[row.game] + 1 for row in mine}


# --- Leaderboards ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Board:
    game: str
    bots: bool
    page: Page
    first_place: int
    mine: Rating | None
    my_place: int | None
    my_page_shows_me: bool


def leaderboard(*, game: str, page: str | int | None, viewer, bots: bool = False) -> Board:
    """The best established players of ``game`` with a rated match in the last 30 days, 100 a page,
    and the viewer's own place wherever it is: three queries (the count, the page, the viewer's).
    People and bot accounts (``bots``) each have their own."""
    board = _on_board(game, bots=bots).select_related("user").order_by("-shown", "user_id")
    shown_page = Paginator(board, BOARD_PAGE).get_page(page)
    mine = my_place = None
    if viewer.is_authenticated:
        mine = _on_board(game, bots=bots).filter(user=viewer).select_related("user").first()
        if mine is not None:
            my_place = _on_board(game, bots=bots).filter(_ahead_of(mine)).count() + 1
    first = (shown_page.number - 1) * BOARD_PAGE + 1
    shows_me = my_place is not None and first <= my_place < first + len(shown_page.object_list)
    return Board(
        game=game,
        bots=bots,
        page=shown_page,
        first_place=first,
        mine=mine,
        my_place=my_place,
        my_page_shows_me=shows_me,
    )


def shown_ratings(*, user_ids: list[int], game: str) -> dict[int, int]:
    """Each person's rating in ``game`` as it reads (a newcomer's is the starting one): what the
    pairing pool puts the closest ratings together by."""
    rows = dict(Rating.objects.filter(user_id__in=user_ids, game=game).values_list("user_id", "shown"))
    return {user_id: rows.get(user_id, model.SHOWN_AT_START) for user_id in user_ids}
