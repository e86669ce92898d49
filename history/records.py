"""A finished match's public record: what anyone could have seen of it at the table, in a stable JSON
form for the open data files and the API.

It holds the options, who sat where (a closed account reads "a deleted player"), every move as the
engine writes its action, the score sheet and the result. Never the seed, the state or a hand: an action
names a card only when it is played face up (a draw says "draw", not what was drawn), and a score
sheet row is read from the public view of a round that has ended. Words in it (a bot's name, a closed
account's) are English whatever the reader's language, so a record is the same for everyone.
"""

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import batched
from typing import Any

from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import translation
from django.utils.translation import gettext

from gameplay.games.screen import bot_name
from gameplay.models import Match, Move, Participant, RoundResult

from .selectors.participants import FINISHED, PLAYING

RECORD_FORMAT = 1
"""Bumped whenever a record's shape changes: readers check it before anything else."""
CHUNK = 500
"""Matches read together by ``public_records``: five queries for each this many."""

_MATCH_FIELDS = (
    "id",
    "game",
    "options",
    "status",
    "result",
    "started_at",
    "finished_at",
    "table__created_at",
    "table__is_private",
    "table__is_rated",
    "table__turn_clock",
    "table__pace_hours",
)
_SEAT_FIELDS = (
    "match_id",
    "seat",
    "bot_level",
    "name",
    "user__erased_at",
    "user__is_bot_account",
    "from_move",
    "until_move",
)
_MOVE_FIELDS = ("match_id", "seq", "seat", "actor", "created_at")
_ROUND_FIELDS = ("match_id", "number", "summary")


def open_matches() -> QuerySet[Match]:
    """The matches the open data publishes: finished, online, at a public table, rated (the stored
    answer of ``tables.rated``). Private tables, casual ones and practice never."""
    return Match.objects.filter(
        status=FINISHED, practice=False, table__is_private=False, table__is_rated=True
    )


def public_record(match: Match) -> dict[str, Any]:
    """The public record of one match that is over (five queries). ``ValueError`` for one still
    being played: its record is not written yet."""
    if match.status == PLAYING:
        raise ValueError("A match still being played has no record yet.")
    return next(public_records(Match.objects.filter(pk=match.pk)))


def public_records(matches: QuerySet[Match], *, chunk: int = CHUNK) -> Iterator[dict[str, Any]]:
    """The public record of each match of ``matches``, in id order, read ``chunk`` matches at a time
    (a server-side cursor, then one query each for their seats, moves and score sheets): memory stays
    that of one chunk however many matches there are."""
    rows = matches.order_by("pk").values_list(*_MATCH_FIELDS).iterator(chunk_size=chunk)
    with translation.override("en"):
        for part in batched(rows, chunk):
            yield from _records(part)


def _by_match(rows: Iterable[tuple]) -> dict[int, list[tuple]]:
    grouped: dict[int, list[tuple]] = defaultdict(list)
    for row in rows:
        grouped[row[0]].append(row[1:])
    return grouped


def _records(matches: tuple[tuple, ...]) -> Iterator[dict[str, Any]]:
    ids = [row[0] for row in matches]
    seats = _by_match(
        Participant.objects.filter(match_id__in=ids)
        .order_by("match_id", "seat", "from_move", "pk")
        .values_list(*_SEAT_FIELDS)
    )
    moves = _by_match(_moves_of(ids))
    rounds = _by_match(
        RoundResult.objects.filter(match_id__in=ids)
        .order_by("match_id", "number")
        .values_list(*_ROUND_FIELDS)
    )
    for row in matches:
        yield _record(row, seats[row[0]], moves[row[0]], rounds[row[0]])


def _moves_of(match_ids: list[int]) -> Iterator[tuple]:
    """The matches' moves in order, (match, seq, seat, action, actor, time) each. The actions come as
    JSON text and are read all at once, one JSON array for the lot: a move costs the JSON reader no
    call of its own (most of a month's build went there)."""
    rows = list(
        Move.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "seq")
        .values_list(*_MOVE_FIELDS, Cast("action", TextField()))
    )
    actions = json.loads("[" + ",".join(row[-1] for row in rows) + "]")
    for (match_id, seq, seat, actor, at, _text), action in zip(rows, actions, strict=True):
        yield match_id, seq, seat, action, actor, at


def _time(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _record(match: tuple, seats: list[tuple], moves: list[tuple], rounds: list[tuple]) -> dict[str, Any]:
    (pk, game, options, status, result, started, finished, created, private, rated, clock, pace) = match
    taken_over = [(seat, seq) for seq, seat, _action, actor, _at in moves if actor == Move.Actor.TAKEOVER]
    return {
        "format": RECORD_FORMAT,
        "id": pk,
        "game": game,
        "options": options,
        "table": {"private": private, "rated": rated, "turn_clock": clock, "pace_hours": pace},
        "created_at": _time(created),
        "started_at": _time(started),
        "finished_at": _time(finished),
        "status": status,
        "seats": [_seat(*seat, taken_over=taken_over) for seat in seats],
        "moves": [
            {"seq": seq, "seat": seat, "action": action, "by": actor, "at": _time(at)}
            for seq, seat, action, actor, at in moves
        ],
        "rounds": [{"number": number, **summary} for number, summary in rounds],
        "result": result,
    }


def _seat(
    position: int,
    bot_level: str,
    name: str,
    erased_at: datetime | None,
    bot_account: bool | None,
    from_move: int,
    until_move: int | None,
    *,
    taken_over: list[tuple[int, int]],
) -> dict[str, Any]:
    """One holder of a seat as everyone saw them: a bot by its seat's name and level, a person (or a bot
    account, marked as one) by the name they played under, or "a deleted player" once their account is
    closed; whether a bot stood
    in for them (``taken_over``: the seat and number of every move a bot made standing in)."""
    deleted = not bot_level and (erased_at is not None or not name)
    shown = gettext("a deleted player") if deleted else name
    return {
        "position": position,
        "name": bot_name(position) if bot_level else shown,
        "bot": bot_level or None,
        "bot_account": bool(bot_account),
        "deleted": deleted,
        "from_move": from_move,
        "until_move": until_move,
        "taken_over": any(
            seat == position and from_move < seq and (until_move is None or seq <= until_move)
            for seat, seq in taken_over
        ),
    }
