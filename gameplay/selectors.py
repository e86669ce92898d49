"""Reads that turn a match into what one person at the table may see.

Everything shown to a seat is built from ``engine.view(state, seat)`` (never the
full state), plus public facts: seat names, the move log's public events, the
score sheet. The only other use of the state is the seat's own legal actions.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from functools import cached_property

from django.db.models import OuterRef, QuerySet, Subquery

from tables.models import Seat, Table

from .engine import Game, get_game, play_refusals
from .engine.step import ROUND_ENDS
from .games import presenter
from .games.screen import LOG_LENGTH, Finished, Player, Screen, bot_name
from .models import Match, Move, RoundResult


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

    @property
    def version(self) -> int:
        return self.match.version

    @cached_property
    def players(self) -> list["Player"]:
        """Who holds each seat, once for every screen of this version."""
        return players(self.seats)

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
    )


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


def players(seats: list[Seat]) -> list[Player]:
    """Who holds each seat, as everyone at the table may know it."""
    return [
        Player(
            name=seat_name(seat),
            is_bot=seat.is_bot,
            level=seat.get_bot_level_display() if seat.is_bot else "",
            stood_in=seat.is_taken_over,
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
    mine = my_seat is not None and to_act == my_seat
    deadline = None
    if to_act is not None and table.turn_clock and not seated[to_act].is_bot:
        deadline = (match.turn_started_at + timedelta(seconds=table.turn_clock)).isoformat()
    next_deal_at = None
    if match.status == Match.Status.PLAYING and match.due == Match.Due.DEAL and match.due_at is not None:
        next_deal_at = match.due_at.isoformat()
    return presenter(match.game).screen(
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
