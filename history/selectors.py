"""Reads for looking back: a player's matches, a match's score sheet, its replay, a player's profile.

Nothing here writes. A replay rebuilds every state of a match from (options, seed, moves) with the
engine, as DESIGN.md promises, and only once the match is over: then laying every hand open tells
nobody anything they could still use.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from functools import reduce
from operator import or_
from statistics import fmean
from typing import Any

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


def match_rows(matches) -> list[MatchRow]:
    """Rows for matches from ``matches_of``, as the player it was asked for sees them."""
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


def _walk(match: Match, moves: list[Move]) -> Iterator[tuple[Move | None, list[dict], Any]]:
    """Every step of the match: (the move, or None for a deal; its public events; the state after it).

    The state is one object changed in place: read what you need before asking for the next step.
    A round is dealt only when a later move needs it, as ``round_deal_next`` did, so a match stopped
    between rounds ends where it stopped.
    """
    game = get_game(match.game)
    try:
        state = game.new_match(game.options_from_json(match.options), match.seed)
        yield None, [], state
        for move in moves:
            if game.awaiting_deal(state):
                yield None, game.next_round(state), state
            yield move, engine_act(game, state, move.seat, game.action_from_json(move.action)), state
    except (IllegalAction, ValueError) as error:
        raise ReplayUnavailable(str(error)) from None
    if game.state_to_json(state) != match.state:
        raise ReplayUnavailable("The moves on record do not lead to the saved state.")


def replay_step(match: Match, index: int) -> ReplayStep:
    """The table at step ``index`` (clamped to the match), rebuilt from the first deal.

    Call only for a ``replayable`` match. Raises ``ReplayUnavailable`` when the record does not replay.
    """
    if not replayable(match):
        raise ValueError("A match still being played has no replay.")
    game = get_game(match.game)
    holders = seat_holders(match)
    moves = list(Move.objects.filter(match=match).order_by("seq"))
    wanted = max(0, index)
    boundaries: list[tuple[int, int]] = []
    step: ReplayStep | None = None
    made = 0
    for count, (move, events, state) in enumerate(_walk(match, moves)):
        if move is None:
            boundaries.append((game.round_number(state), count))
        else:
            made = move.seq
        if count == wanted:
            step = _snapshot(game, state, move, events, _held_for(holders, move, made), count)
    if step is None:  # an index past the end: the last step, whose state the loop still holds
        step = _snapshot(game, state, move, events, _held_for(holders, move, made), count)
    step.last = count
    step.boundaries = boundaries
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
    return Profile(player=player, stats=stats, recent=match_rows(recent[:RECENT]))
