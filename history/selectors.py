"""Reads for looking back: a player's matches, a match's score sheet, its replay, a player's profile.

Nothing here writes to the database. A replay rebuilds every state of a match from (options, seed,
moves) with the engine, as DESIGN.md promises, and only once the match is over: then laying every
hand open tells nobody anything they could still use.
"""

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from functools import reduce
from itertools import islice
from operator import or_
from statistics import fmean
from typing import Any

from django.core.cache import caches
from django.db.models import (
    BooleanField,
    Case,
    Exists,
    F,
    FilteredRelation,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.utils.translation import gettext as _

from gameplay.engine import IllegalAction, get_game
from gameplay.engine.core import act as engine_act
from gameplay.games import presenter
from gameplay.games.narration import describe
from gameplay.games.screen import Finished, Player, ScoreSheet, Screen, SeatInfo
from gameplay.models import Match, Move, Participant, RoundResult
from gameplay.selectors import participant_names, result_text
from ratings import selectors as rating_selectors
from ratings.models import RatingChange
from tables.models import Game

MAX_SEATS = 4
PLAYING, FINISHED, ABORTED = Match.Status.PLAYING, Match.Status.FINISHED, Match.Status.ABORTED
OUTCOMES = ("won", "lost", "no_winner", "abandoned")
"""The results "My matches" filters by, as the player sees their own match."""
RECENT = 10


# --- Who sat where, and who may look ---------------------------------------------------------------
# A match's participants say who held each seat and from which move to which; the table's seats say
# only who sits there now, which a moderator may have changed.


def _with_participants(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.select_related("table").prefetch_related(
        Prefetch("participants", queryset=Participant.objects.select_related("user"))
    )


def match_detail(*, match_id: int) -> Match | None:
    """A match with its table and participants."""
    return _with_participants(Match.objects.filter(pk=match_id)).first()


def seat_holders(match: Match) -> list[list[Participant]]:
    """Who held each seat, seat by seat, in the order they held it (several after a replacement)."""
    by_seat: dict[int, list[Participant]] = {}
    for participant in match.participants.all():  # ordered by seat, then from_move
        by_seat.setdefault(participant.seat, []).append(participant)
    return [by_seat[seat] for seat in sorted(by_seat)]


def _holder_at(holders: list[Participant], move: int) -> Participant:
    """Who held the seat for move number ``move`` (counted from 1): from_move < move <= until_move."""
    return next(
        (p for p in holders if p.from_move < move and (p.until_move is None or move <= p.until_move)),
        holders[-1],
    )


def seat_of(match: Match, user) -> int | None:
    """The seat ``user`` held in ``match`` (for however long), or None for a spectator."""
    if not user.is_authenticated:
        return None
    return next((p.seat for p in match.participants.all() if p.user_id == user.pk), None)


def can_view(*, match: Match, user) -> bool:
    """Its players see a match; anyone logged in sees a public table's; moderators see all."""
    if not user.is_authenticated:
        return False
    return user.is_staff or not match.table.is_private or seat_of(match, user) is not None


def _took_part(user) -> Exists:
    """The match (the outer query's row) is one ``user`` held a seat in, for however long."""
    return Exists(Participant.objects.filter(match=OuterRef("pk"), user=user))


def outcome_of(match: Match, seat: int | None) -> str:
    """How the match came out for ``seat``: won, lost, no_winner, abandoned, or playing."""
    if match.status == ABORTED:
        return "abandoned"
    if match.status == PLAYING:
        return "playing"
    winners = match.result["winners"]
    if not winners:
        return "no_winner"
    return "won" if seat in winners else "lost"


def outcome_label(outcome: str) -> str:
    return {
        "won": _("won"),
        "lost": _("lost"),
        "no_winner": _("no winner"),
        "abandoned": _("abandoned"),
        "playing": _("still playing"),
    }[outcome]


def _duration(match: Match) -> timedelta | None:
    return match.finished_at - match.started_at if match.finished_at else None


# --- My matches --------------------------------------------------------------------------------------


@dataclass
class MatchRow:
    """One line of a match list, seen by one player."""

    match: Match
    outcome: str
    outcome_label: str
    opponents: list[str]
    scores: list[tuple[str, int]]
    """Each side and its final (or current) total; games won for a classic match played to games."""
    duration: timedelta | None
    rating: RatingChange | None = None
    """What the match did to the player's rating, when it was rated."""


def _among(field_path: str) -> Q:
    """The annotated ``my_seat`` is one of the seats in the JSON list ``field_path`` (one seat, or a team)."""
    return reduce(
        or_,
        (
            Q(my_seat=seat) & (Q(**{f"{field_path}__0": seat}) | Q(**{f"{field_path}__1": seat}))
            for seat in range(MAX_SEATS)
        ),
    )


def _annotate_player(matches: QuerySet[Match], user) -> QuerySet[Match]:
    """Each match with ``my_seat`` (the seat ``user`` held) and ``i_won``."""
    my_seat = Participant.objects.filter(match=OuterRef("pk"), user=user).order_by("from_move").values("seat")
    return matches.annotate(my_seat=Subquery(my_seat[:1])).annotate(
        i_won=Case(
            When(Q(status=FINISHED) & _among("result__winners"), then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        )
    )


_OUTCOME_FILTERS = {
    "won": Q(i_won=True),
    "lost": Q(status=FINISHED, i_won=False) & ~Q(result__winners=[]),
    "no_winner": Q(status=FINISHED, result__winners=[]),
    "abandoned": Q(status=ABORTED),
}


def matches_of(*, user, game: str | None = None, outcome: str | None = None) -> QuerySet[Match]:
    """Every match ``user`` took part in, newest first, of ``game`` and with ``outcome`` for them when given.

    A player replaced mid-match still finds it here, with the seat they held."""
    matches = _annotate_player(Match.objects.filter(_took_part(user)), user)
    if game:
        matches = matches.filter(game=game)
    if outcome:
        matches = matches.filter(_OUTCOME_FILTERS[outcome])
    return _with_participants(matches).order_by("-started_at", "-pk")


def match_rows(matches, *, user) -> list[MatchRow]:
    """Rows for matches from ``matches_of``, as ``user`` (the player it was asked for) sees them."""
    matches = list(matches)
    changes = rating_selectors.changes_of(user=user, match_ids=[match.pk for match in matches])
    rows = []
    for match in matches:
        names = participant_names(match)
        outcome = outcome_of(match, match.my_seat)
        show = presenter(match.game)
        sides = show.sides(names, match.options)
        totals = show.standings(match.options, match.state["totals"], match.state.get("games_won"))
        rows.append(
            MatchRow(
                match=match,
                outcome=outcome,
                outcome_label=outcome_label(outcome),
                opponents=[name for seat, name in enumerate(names) if seat != match.my_seat],
                scores=list(zip(sides, totals, strict=True)),
                duration=_duration(match),
                rating=changes.get(match.pk),
            )
        )
    return rows


# --- The score sheet ---------------------------------------------------------------------------------


def score_sheet(match: Match) -> ScoreSheet:
    """One row per round (Americana) or deal (classic) from the rows recorded as each ended."""
    names = participant_names(match)
    return presenter(match.game).score_sheet(
        [Finished(r.number, r.summary) for r in RoundResult.objects.filter(match=match).order_by("number")],
        names,
        match.options,
        match.state["totals"],
        match.state.get("games_won"),
        result_text(match, names),
    )


# --- The replay ---


class ReplayUnavailable(Exception):
    """The moves on record do not lead to the match's saved state (it was edited): nothing to replay."""


@dataclass
class ReplayStep:
    """The table after one step of a finished match: every hand face up, and what just happened."""

    index: int
    last: int
    kind: str
    """"deal" (a round or deal begins) or "move"."""
    round: int
    who: str
    actor: str
    """Who made the move: "player", "bot" or "takeover" (a bot standing in); "" for a deal."""
    lines: list[str]
    screen: Screen
    """The table at this step as a spectator sees it, with every hand face up."""
    public: Mapping[str, Any]
    boundaries: list[tuple[int, int]]
    """(round or deal number, index of the step that deals it), to jump between them."""
    standings: list[tuple[str, int, int | None]]
    """Each side's running total and (classic) games won so far."""
    made: int = 0
    """Moves made by this step (a deal makes none): the chat's lines said by then are shown with it."""

    @property
    def seats(self) -> list[SeatInfo]:
        return self.screen.seats

    @property
    def remaining(self) -> int:
        """Steps after this one (0 at the end)."""
        return self.last - self.index


def replayable(match: Match) -> bool:
    """Only a match that is over may be replayed: nobody opens the hands of a live one."""
    return match.status != PLAYING


CHECKPOINT_STEPS = 20
"""A replay keeps the state every this many steps, so a step is replayed from at most this many back."""
REPLAY_CACHE_SECONDS = 3600
"""How long a replay's outline and kept states stay cached after its first step was asked for."""
REPLAY_FORMAT = 1
"""In the replay's cache keys: bumped whenever what is cached changes shape."""
WALKED_MOVES_PER_STEP = 1000
"""Walking this many moves of a match costs about what one step's page does (measured: 2,252 moves in
40–50 ms, a step's page about 19 ms)."""


def _replay_key(match: Match) -> str:
    """Names this very record: a match whose game, options, seed, moves made or end were edited (or a
    new database's match with a reused number) is another replay."""
    record = json.dumps(
        [match.game, match.options, match.seed, match.moves_made, match.state], sort_keys=True
    )
    return f"replay{REPLAY_FORMAT}:{match.pk}:{hashlib.blake2b(record.encode(), digest_size=16).hexdigest()}"


def _kept_before(index: int) -> int:
    """The step whose state step ``index`` is made again from: the first step is its own; any other is
    replayed from the last state kept before it, which gives the step's move and events."""
    return 0 if index == 0 else (index - 1) // CHECKPOINT_STEPS * CHECKPOINT_STEPS


def _kept_at(key: str, index: int) -> str:
    return f"{key}:{_kept_before(index)}"


def _steps(game, state, moves: Iterable[Move]) -> Iterator[tuple[Move | None, list[dict]]]:
    """The steps after ``state``, which each changes in place: (None, a deal's events) or (a move, its
    events). A round is dealt only when a later move needs it, as ``round_deal_next`` did, so a match
    stopped between rounds ends where it stopped."""
    try:
        for move in moves:
            if game.awaiting_deal(state):
                yield None, game.next_round(state)
            yield move, engine_act(game, state, move.seat, game.action_from_json(move.action))
    except (IllegalAction, ValueError) as error:
        raise ReplayUnavailable(str(error)) from None


def _outline(match: Match, game) -> tuple[dict, dict[int, tuple[int, dict]]]:
    """The whole match walked once from its first deal: its outline (the last step, and the step that
    deals each round or deal) and the states kept every ``CHECKPOINT_STEPS`` steps, by step, each with
    the moves made by then. ``ReplayUnavailable`` when the moves do not lead to the saved state."""
    try:
        state = game.new_match(game.options_from_json(match.options), match.seed)
    except ValueError as error:
        raise ReplayUnavailable(str(error)) from None
    boundaries = [(game.round_number(state), 0)]
    kept = {0: (0, game.state_to_json(state))}
    index = made = 0
    moves = Move.objects.filter(match=match).order_by("seq").only("seq", "seat", "action")
    for index, (move, _events) in enumerate(_steps(game, state, moves), start=1):
        if move is None:
            boundaries.append((game.round_number(state), index))
        else:
            made = move.seq
        if index % CHECKPOINT_STEPS == 0:
            kept[index] = (made, game.state_to_json(state))
    if game.state_to_json(state) != match.state:
        raise ReplayUnavailable("The moves on record do not lead to the saved state.")
    return {"last": index, "boundaries": boundaries}, kept


def _outline_and_kept_state(match: Match, game, index: int) -> tuple[dict, int, tuple[int, dict]]:
    """(The replay's outline, ``index`` clamped to it, the state kept before that step), from the cache
    when they are there (one round trip), else walked once and cached: a finished match never changes."""
    cache = caches["default"]
    key = _replay_key(match)
    found = cache.get_many([key, _kept_at(key, index)])
    outline = found.get(key)
    if outline is not None and "unavailable" not in outline and index > outline["last"]:
        index = outline["last"]
        found |= cache.get_many([_kept_at(key, index)])
    if outline is None or ("unavailable" not in outline and _kept_at(key, index) not in found):
        try:
            outline, kept = _outline(match, game)
        except ReplayUnavailable as error:
            outline, kept = {"unavailable": str(error)}, {}
        found = {f"{key}:{at}": state for at, state in kept.items()}
        cache.set_many({key: outline} | found, REPLAY_CACHE_SECONDS)
    if "unavailable" in outline:
        raise ReplayUnavailable(outline["unavailable"])
    index = min(index, outline["last"])
    return outline, index, found[_kept_at(key, index)]


def replay_cost(match: Match) -> float:
    """What the next step of ``match``'s replay costs, in steps: one when the replay is cached; the first
    walks the whole match, which counts for more (``WALKED_MOVES_PER_STEP``)."""
    if caches["default"].has_key(_replay_key(match)):
        return 1.0
    return 1.0 + match.moves_made / WALKED_MOVES_PER_STEP


def replay_step(match: Match, index: int) -> ReplayStep:
    """The table at step ``index`` (clamped to the match), made again from the state kept at most
    ``CHECKPOINT_STEPS`` steps before it: a step costs the same at the first move as at the last, so
    Play through a long match is not quadratic. The first step asked of a match walks it whole, once.

    Call only for a ``replayable`` match. Raises ``ReplayUnavailable`` when the record does not replay.
    """
    if not replayable(match):
        raise ValueError("A match still being played has no replay.")
    game = get_game(match.game)
    outline, wanted, (made, kept) = _outline_and_kept_state(match, game, max(0, index))
    state = game.state_from_json(kept)
    move, events = None, []
    if wanted:
        steps = wanted - _kept_before(wanted)  # each a deal or one move: at most this many moves
        moves = (
            Move.objects.filter(match=match, seq__gt=made, seq__lte=made + steps)
            .order_by("seq")
            .only("seq", "seat", "action", "actor")
        )
        walked = list(islice(_steps(game, state, moves), steps))
        move, events = walked[-1]  # the step asked for
        made += sum(1 for done, _events in walked if done)
    step = _snapshot(game, state, move, events, _held_for(seat_holders(match), move, made), wanted)
    step.last = outline["last"]
    step.made = made
    step.boundaries = outline["boundaries"]
    games_won = step.public.get("games_won") or [None] * len(step.public["totals"])
    names = [seat.name for seat in step.seats]
    sides = presenter(match.game).sides(names, match.options)
    step.standings = list(zip(sides, step.public["totals"], games_won, strict=True))
    return step


def _held_for(holders: list[list[Participant]], move: Move | None, made: int) -> list[Participant]:
    """Who held each seat at a step: for a move, while it was made; for a deal, for the next move."""
    number = move.seq if move else made + 1
    return [_holder_at(seat, number) for seat in holders]


def _snapshot(
    game, state, move: Move | None, events: list[dict], held: list[Participant], index: int
) -> ReplayStep:
    show = presenter(game.name)
    names = [p.display_name for p in held]
    public = game.view(state, None)
    screen = show.screen(
        public,
        players=[
            Player(name=p.display_name, is_bot=p.is_bot, level=p.get_bot_level_display() if p.is_bot else "")
            for p in held
        ],
        open_hands=game.state_to_json(state)["hands"],
    )
    if move is None:
        lines = [show.replay_deal_line(public, names)]
        who, actor = "", ""
    else:
        stood_in = move.seat if move.actor == Move.Actor.TAKEOVER else None
        lines = [line for event in events if (line := describe(event, names, stood_in=stood_in))]
        who, actor = names[move.seat], move.actor
    return ReplayStep(
        index=index,
        last=index,
        kind="deal" if move is None else "move",
        round=game.round_number(state),
        who=who,
        actor=actor,
        lines=lines,
        screen=screen,
        public=public,
        boundaries=[],
        standings=[],
    )


# --- A player's profile ------------------------------------------------------------------------------


@dataclass
class GameStats:
    game: str
    label: str
    played: int
    won: int
    abandoned: int
    average: float | None
    """Americana: the average charge per round; classic: the average points captured per deal."""


@dataclass
class Profile:
    player: Any
    stats: list[GameStats]
    recent: list[MatchRow]
    ratings: list[rating_selectors.GameRating]


def _average(player, game: str) -> float | None:
    """Over the rounds (deals) of online matches that ended while ``player`` held their seat, not those
    after a replacement."""
    key = presenter(game).averaged
    held = Q(match__participants__user=player)
    whole_match = Q(held__from_move=0, held__until_move__isnull=True)
    last_move = Move.objects.filter(match=OuterRef("match"), created_at__lte=OuterRef("created_at"))
    rows = (
        RoundResult.objects.annotate(held=FilteredRelation("match__participants", condition=held))
        .filter(match__game=game, match__practice=False, held__isnull=False)
        # Looked up only for a player who held the seat for part of the match (CASE stops there).
        .annotate(
            ended_after=Case(
                When(whole_match, then=Value(0)),
                default=Subquery(last_move.order_by("-seq").values("seq")[:1]),
                output_field=IntegerField(),
            )
        )
        .filter(
            whole_match
            | Q(ended_after__gt=F("held__from_move"))
            & (Q(held__until_move__isnull=True) | Q(ended_after__lte=F("held__until_move")))
        )
        .values_list(f"summary__{key}", "held__seat")
    )
    values = [per_seat[position] for per_seat, position in rows]
    return round(fmean(values), 1) if values else None


def player_profile(*, player, viewer) -> Profile:
    """What anyone logged in may read about ``player``: counts per game and averages of online matches
    (practice matches are not counted), recent matches (practice ones too).

    The recent matches are those ``viewer`` may open: at public tables, and private ones they played in.
    """
    matches = matches_of(user=player)
    stats = []
    for game, label in Game.choices:
        mine = matches.filter(game=game, practice=False)
        stats.append(
            GameStats(
                game=game,
                label=str(label),
                played=mine.filter(status=FINISHED).count(),
                won=mine.filter(i_won=True).count(),
                abandoned=mine.filter(status=ABORTED).count(),
                average=_average(player, game),
            )
        )
    recent = matches
    if viewer.pk != player.pk and not viewer.is_staff:
        recent = recent.filter(Q(table__is_private=False) | _took_part(viewer))
    return Profile(
        player=player,
        stats=stats,
        recent=match_rows(recent[:RECENT], user=player),
        ratings=rating_selectors.ratings_of(user=player),
    )
