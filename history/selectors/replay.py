"""The replay: every state of a match rebuilt from (options, seed, moves) with the engine, as DESIGN.md
promises, and only once the match is over: then laying every hand open tells nobody anything they
could still use."""

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from django.core.cache import caches

from gameplay.engine import IllegalAction, get_game
from gameplay.engine.core import act as engine_act
from gameplay.games import presenter
from gameplay.games.narration import describe
from gameplay.games.screen import Player, Screen, SeatInfo
from gameplay.models import Match, Move, Participant

from .participants import PLAYING, holder_at, seat_holders


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
    return [holder_at(seat, number) for seat in holders]


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
