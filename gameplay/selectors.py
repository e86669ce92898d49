"""Reads that turn a match into what one person at the table may see.

Everything shown to a seat is built from ``engine.view(state, seat)`` (never the
full state), plus public facts: seat names, the move log's public events, the
score sheet. The only other use of the state is the seat's own legal actions.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cached_property
from types import MappingProxyType

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from tables.models import Seat, Table

from .durations import time_left_words
from .engine import Game, get_game, play_refusals
from .engine.step import ROUND_ENDS
from .games import presenter
from .games.narration import describe
from .games.screen import LOG_LENGTH, Finished, Player, Screen, bot_name
from .games.words import card_name
from .models import Holiday, Match, Move, RoundResult


def current_match(table: Table) -> Match | None:
    return table.matches.order_by("-started_at").first()


def match_versions(table_ids: list[int]) -> dict[int, tuple[int, int]]:
    """Each table's current match and its version, as the database has them now (one light query)."""
    current = Match.objects.filter(table_id=OuterRef("table_id")).order_by("-started_at").values("pk")[:1]
    rows = Match.objects.filter(table_id__in=table_ids, pk=Subquery(current))
    return {row[0]: row[1:] for row in rows.values_list("table_id", "pk", "version")}


@dataclass
class TableSnapshot:
    """A table and its current match as of one version, read once and shared by every viewer's screen.

    Holds the full state, so it never leaves the server: each screen is built from it through
    ``engine.view`` for one seat.
    """

    table: Table
    match: Match
    state: object
    seats: list[Seat]
    """The table's seats in order (read with the table, shared by every screen)."""
    recent_moves: list[tuple[int | None, list[dict]]]
    """The last moves' public events, each with the seat a bot stood in for when it made it."""
    last_seq: int
    rounds: list[RoundResult]
    away: dict[int, datetime] = field(default_factory=dict)
    """At a table at own pace: the end of the holiday each seated person on one is on, by user id."""

    @property
    def version(self) -> int:
        return self.match.version

    @cached_property
    def players(self) -> list["Player"]:
        """Who holds each seat, once for every screen of this version."""
        return players(self.seats, self.away)

    @cached_property
    def positions(self) -> dict[int, int]:
        """Each seated person's seat, by user id: every screen of this version asks for its viewer's."""
        return seat_positions(self.seats)


LOGGED = ("seq", "seat", "actor", "events")
"""What the log reads of each move."""


def _logged(_seq: int, seat: int | None, actor: str, events: list[dict]) -> tuple[int | None, list[dict]]:
    """A move as the log tells it: the seat a bot stood in for (None if the seat acted itself), its events."""
    return (seat if actor == Move.Actor.TAKEOVER else None), events


def table_snapshot(table: Table) -> TableSnapshot | None:
    """The table's current match, its last moves and its score sheet; None before any match.

    ``table`` comes with its seats prefetched (``tables.selectors.table_detail``).
    """
    match = current_match(table)
    if match is None:
        return None
    seat_rows = sorted(table.seats.all(), key=lambda seat: seat.position)
    moves = list(_moves_counted(match).order_by("-seq").values_list(*LOGGED)[:LOG_LENGTH])
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    return TableSnapshot(
        table=table,
        match=match,
        state=state,
        seats=seat_rows,
        recent_moves=[_logged(*move) for move in reversed(moves)],
        last_seq=match.moves_made,
        rounds=_rounds_counted(match, game, state),
        away=_away(table, seat_rows),
    )


def _away(table: Table, seats: list[Seat]) -> dict[int, datetime]:
    """The end of each seated person's holiday now, by user id, at a table at own pace (one query; none
    at a live table, where holidays stop nothing)."""
    people = [seat.user_id for seat in seats if seat.user_id is not None]
    if not table.is_own_pace or not people:
        return {}
    return Holiday.objects.ends_by_person(people)


def _moves_counted(match: Match, *, after: int = 0) -> QuerySet[Move]:
    """The moves after ``after`` that ``match``, as read, counts: a move committed since the match was
    read waits for the next read, so the log never runs ahead of the state and version beside it (the
    match row and the move are written in one transaction)."""
    return Move.objects.filter(match=match, seq__gt=after, seq__lte=match.moves_made)


def _rounds_counted(match: Match, game: Game, state: object) -> list[RoundResult]:
    """The score sheet's rows for the rounds ``state`` has seen end (one committed since the match was
    read waits for the next read): each row is written by the move that ends its round."""
    number = game.round_number(state)
    ended = number if game.awaiting_deal(state) or game.is_over(state) else number - 1
    return list(match.rounds.filter(number__lte=ended).order_by("number"))


def snapshot_after(snapshot: TableSnapshot, match: Match, state: object, move: Move) -> TableSnapshot:
    """The same table after ``move``, which changed nothing but the match and ended no round: built
    from what the move committed (``match`` and its engine ``state``), with no read."""
    return TableSnapshot(
        table=snapshot.table,
        match=match,
        state=state,
        seats=snapshot.seats,
        recent_moves=[*snapshot.recent_moves, _logged(move.seq, move.seat, move.actor, move.events)][
            -LOG_LENGTH:
        ],
        last_seq=move.seq,
        rounds=snapshot.rounds,
        away=snapshot.away,
    )


def snapshot_advanced(snapshot: TableSnapshot) -> TableSnapshot:
    """The same table after moves or deals alone (its seats and status unchanged): only the match and
    its new moves are read again, and the score sheet when a round or deal ended among them."""
    match = Match.objects.get(pk=snapshot.match.pk)
    moves = list(_moves_counted(match, after=snapshot.last_seq).order_by("seq").values_list(*LOGGED))
    new_moves = [_logged(*move) for move in moves]
    round_ended = any(event["type"] in ROUND_ENDS for _seat, events in new_moves for event in events)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    return TableSnapshot(
        table=snapshot.table,
        match=match,
        state=state,
        seats=snapshot.seats,
        recent_moves=[*snapshot.recent_moves, *new_moves][-LOG_LENGTH:],
        last_seq=match.moves_made,
        rounds=_rounds_counted(match, game, state) if round_ended else snapshot.rounds,
        away=_away(snapshot.table, snapshot.seats),
    )


def participant_names(match: Match) -> list[str]:
    """Each seat's name from the match's participants; a seat held by several in turn names them all
    in order ("ana → Bot 2")."""
    by_seat: dict[int, list[str]] = {}
    for participant in match.participants.all():  # ordered by seat, then from_move
        by_seat.setdefault(participant.seat, []).append(participant.display_name)
    return [" → ".join(by_seat[seat]) for seat in sorted(by_seat)]


def result_text(match: Match, names: list[str]) -> str:
    """The match's recorded result in one sentence, for everyone."""
    winners = match.result["winners"] if match.status == Match.Status.FINISHED else []
    return presenter(match.game).result(match.status, winners, names, match.options, match.abort_reason)


def seat_positions(seats: Iterable[Seat]) -> dict[int, int]:
    """Each seated person's seat, by user id."""
    return {seat.user_id: seat.position for seat in seats if seat.user_id is not None}


def seat_name(seat: Seat) -> str:
    """A person's name as others see it; a bot is named by its seat ("Bot 3"), its level beside it."""
    if seat.user_id:
        return seat.user.public_name
    return bot_name(seat.position)


def players(seats: list[Seat], away: Mapping[int, datetime] = MappingProxyType({})) -> list[Player]:
    """Who holds each seat, as everyone at the table may know it (``away``: the end of the holiday of
    each person on one, by user id)."""
    return [
        Player(
            name=seat_name(seat),
            is_bot=seat.is_bot,
            level=seat.get_bot_level_display() if seat.is_bot else "",
            stood_in=seat.is_taken_over,
            away_until=away.get(seat.user_id) if seat.user_id is not None else None,
            bot_account=seat.user_id is not None and seat.user.is_bot_account,
        )
        for seat in seats
    ]


def table_screen(snapshot: TableSnapshot, user, *, common: dict | None = None) -> Screen:
    """The table as ``user`` sees it: their seat's view of the match (a spectator's if they hold none).
    ``common``: what the screens of the same version share in the active language (``Presenter.screen``)."""
    table, match, state = snapshot.table, snapshot.match, snapshot.state
    game = get_game(match.game)
    seated = snapshot.players
    my_seat = snapshot.positions.get(user.pk) if user.is_authenticated else None
    to_act = game.to_act(state) if match.status == Match.Status.PLAYING else None
    # At own pace a bot standing in plays the person's whole turn, which they cannot take back.
    mine = my_seat is not None and to_act == my_seat and not (table.is_own_pace and seated[my_seat].stood_in)
    deadline, time_left = None, ""
    if table.is_own_pace:
        if to_act is not None and match.due == Match.Due.PACE and match.due_at is not None:
            deadline, time_left = match.due_at.isoformat(), time_left_words(match.due_at - timezone.now())
    elif to_act is not None and table.turn_clock and not seated[to_act].is_bot:
        deadline = (match.turn_started_at + timedelta(seconds=table.turn_clock)).isoformat()
    next_deal_at = None
    if match.status == Match.Status.PLAYING and match.due == Match.Due.DEAL and match.due_at is not None:
        next_deal_at = match.due_at.isoformat()
    screen = presenter(match.game).screen(
        game.view(state, my_seat),
        players=seated,
        legal=[game.action_to_json(action) for action in game.legal_actions(state)] if mine else (),
        status=match.status,
        reason=match.abort_reason,
        rounds=[Finished(done.number, done.summary) for done in snapshot.rounds],
        log=snapshot.recent_moves,
        deadline=deadline,
        next_deal_at=next_deal_at,
        version=match.version,
        match_id=match.pk,
        refusals=play_refusals(game, state) if mine else None,
        common=common,
    )
    if not table.is_own_pace:
        return screen
    pace = table.get_pace_hours_display()
    return replace(screen, subtitle=f"{screen.subtitle} · {pace}", pace=pace, time_left=time_left)


# --- Matches at their own pace ------------------------------------------------------------------


@dataclass(frozen=True)
class PaceTable:
    """One of a person's tables at their own pace, as the "Your turn" page lists it."""

    table: Table
    opponents: list[str]
    match: Match | None
    """The match being played; None while the table waits for players."""
    my_turn: bool
    to_act_name: str = ""


def pace_turns_count(user_id: int) -> int:
    """How many matches at their own pace wait for the person's move (the top bar's count): one COUNT."""
    return Match.objects.waiting_at_own_pace_for(user_id).count()


def pace_tables(user) -> list[PaceTable]:
    """The person's tables at their own pace, playing or waiting for players: the ones waiting for their
    move first, the soonest deadline first; then the others' turns, by deadline; then the tables still
    filling. Three queries, however many tables."""
    tables = list(
        Table.objects.filter(seats__user=user, pace_hours__gt=0, status__in=Table.NOT_OVER)
        .prefetch_related("seats__user")
        .order_by("created_at")
    )
    matches = {
        match.table_id: match
        for match in Match.objects.filter(
            table_id__in=[table.pk for table in tables], status=Match.Status.PLAYING
        )
    }
    listed = []
    for table in tables:
        seats = sorted(table.seats.all(), key=lambda seat: seat.position)
        match = matches.get(table.pk)
        to_act = next((seat for seat in seats if match and seat.position == match.to_act), None)
        listed.append(
            PaceTable(
                table=table,
                opponents=[seat_name(seat) for seat in seats if seat.user_id != user.pk and not seat.is_free],
                match=match,
                my_turn=to_act is not None and to_act.user_id == user.pk and match.due == Match.Due.PACE,
                to_act_name=seat_name(to_act) if to_act is not None and to_act.user_id != user.pk else "",
            )
        )

    def order(row: PaceTable) -> tuple:
        due = row.match.due_at if row.match is not None else None
        return (not row.my_turn, row.match is None, due is None, due or row.table.created_at)

    return sorted(listed, key=order)


PACE_NEWS_MOVES = 30
"""The most moves "since you were here" tells, the latest; the earlier ones are counted."""


@dataclass(frozen=True)
class PaceNews:
    """What happened at a table at own pace since the person's previous visit, in words from the moves'
    public events only (a draw is a count, never the cards)."""

    lines: list[str]
    ran_out: str = ""
    """What bots did for the person because their time ran out, if they did."""
    earlier: int = 0
    """Moves before the lines, not told."""


def pace_news(snapshot: TableSnapshot, seat: int, *, seen: int) -> PaceNews | None:
    """The moves made at the table since the person at ``seat`` had seen ``seen`` of them, but their
    own; None when there are none."""
    match = snapshot.match
    moves = list(_moves_counted(match, after=seen).order_by("-seq").values_list(*LOGGED)[:PACE_NEWS_MOVES])
    moves.reverse()
    earlier = max(0, match.moves_made - seen - len(moves))
    names = [player.name for player in snapshot.players]
    lines, stood_in_for_me = [], []
    for _seq, mover, actor, events in moves:
        if mover == seat and actor == Move.Actor.PLAYER:
            continue
        stood_in = mover if actor == Move.Actor.TAKEOVER else None
        lines.extend(line for event in events if (line := describe(event, names, stood_in=stood_in)))
        if stood_in == seat:
            stood_in_for_me.extend(events)
    if not lines:
        return None
    return PaceNews(lines=lines, ran_out=_ran_out_line(stood_in_for_me), earlier=earlier)


def _ran_out_line(events: list[dict]) -> str:
    """What bots did for the person whose time ran out (the cards they played, where they played some);
    "" when none did."""
    if not events:
        return ""
    cards = [card_name(event["card"]) for event in events if event["type"] == "played"]
    if not cards:
        return gettext("Your time ran out: a bot made your move for you.")
    return gettext("Your time ran out: a bot played the %(cards)s for you.") % {"cards": ", ".join(cards)}
