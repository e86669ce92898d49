"""Reads that turn a match into what one person at the table may see.

Everything shown to a seat is built from ``engine.view(state, seat)`` (never the
full state), plus public facts: seat names, the move log's public events, the
score sheet. The only other use of the state is the seat's own legal actions.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from tables.models import Seat, Table

from . import narration
from .engine import get_game
from .models import Match, Move, RoundResult

LOG_LENGTH = 8
ROUND_ENDS = {"round_over", "deal_over", "match_over"}
"""Events after which the score sheet has a new row."""


def current_match(table: Table) -> Match | None:
    return table.matches.order_by("-started_at").first()


def match_version(table_id: int) -> tuple[int, int] | None:
    """The table's current match and its version, as the database has them now (one light query)."""
    return (
        Match.objects.filter(table_id=table_id).order_by("-started_at").values_list("pk", "version").first()
    )


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
    names: list[str]
    recent_moves: list[tuple[int | None, list[dict]]]
    """The last moves' public events, each with the seat a bot stood in for when it made it."""
    last_seq: int
    rounds: list[RoundResult]
    _log_lines: dict[str, list[str]] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.match.version

    def log_lines(self) -> list[str]:
        """The last moves as sentences in the active language (made once per language)."""
        language = get_language()
        if language not in self._log_lines:
            self._log_lines[language] = [
                line
                for stood_in, events in self.recent_moves
                for event in events
                if (line := narration.describe(event, self.names, stood_in=stood_in))
            ][-LOG_LENGTH:]
        return self._log_lines[language]


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
    moves = list(Move.objects.filter(match=match).order_by("-seq").values_list(*LOGGED)[:LOG_LENGTH])
    return TableSnapshot(
        table=table,
        match=match,
        state=get_game(match.game).state_from_json(match.state),
        seats=seat_rows,
        names=[seat_name(s) for s in seat_rows],
        recent_moves=[_logged(*move) for move in reversed(moves)],
        last_seq=moves[0][0] if moves else 0,
        rounds=list(match.rounds.order_by("number")),
    )


def snapshot_advanced(snapshot: TableSnapshot) -> TableSnapshot:
    """The same table after moves or deals alone (its seats and status unchanged): only the match and
    its new moves are read again, and the score sheet when a round or deal ended among them."""
    match = Match.objects.get(pk=snapshot.match.pk)
    moves = list(
        Move.objects.filter(match=match, seq__gt=snapshot.last_seq).order_by("seq").values_list(*LOGGED)
    )
    new_moves = [_logged(*move) for move in moves]
    round_ended = any(event["type"] in ROUND_ENDS for _seat, events in new_moves for event in events)
    return TableSnapshot(
        table=snapshot.table,
        match=match,
        state=get_game(match.game).state_from_json(match.state),
        seats=snapshot.seats,
        names=snapshot.names,
        recent_moves=[*snapshot.recent_moves, *new_moves][-LOG_LENGTH:],
        last_seq=moves[-1][0] if moves else snapshot.last_seq,
        rounds=list(match.rounds.order_by("number")) if round_ended else snapshot.rounds,
    )


@dataclass
class SeatInfo:
    position: int
    name: str
    is_me: bool
    is_bot: bool
    taken_over: bool
    to_act: bool
    cards: int
    team: int | None = None
    captured: int | None = None
    is_partner: bool = False
    level: str = ""


@dataclass
class Screen:
    """Everything the table page shows one viewer (a seat, or a spectator with ``seat=None``)."""

    table: Table
    match: Match
    game: str
    seat: int | None
    view: dict
    seats: list[SeatInfo]
    opponents: list[SeatInfo]
    me: SeatInfo | None
    hand: list[dict] = field(default_factory=list)
    can_play: bool = False
    buttons: list[dict] = field(default_factory=list)
    my_turn: bool = False
    deadline: str | None = None
    log: list[str] = field(default_factory=list)
    rounds: list[RoundResult] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    to_act_name: str = ""
    aimed_text: str = ""
    trick: list[dict] = field(default_factory=list)
    holder_text: str = ""
    sides: list[str] = field(default_factory=list)
    laid_open: list[dict] = field(default_factory=list)
    outcome_text: str = ""
    """Who scores together: each seat, or in classic teams "Ana & Ion"."""

    @property
    def version(self) -> int:
        return self.match.version

    @property
    def sheet(self) -> str:
        """Which score sheet is on show: "match" once it is over, "round" between rounds or deals, else ""."""
        if self.view["match_over"] or self.match.status != Match.Status.PLAYING:
            return "match"
        if self.view.get("awaiting_deal") or self.view.get("deal_over"):
            return "round"
        return ""


def seat_name(seat: Seat) -> str:
    """A person's username; a bot is named by its seat ("Bot 3"), its level shown beside it."""
    if seat.user_id:
        return seat.user.username
    return _("Bot %(number)d") % {"number": seat.position + 1}


def _buttons(game_name: str, view: dict, legal: list[dict]) -> tuple[bool, list[dict]]:
    """Whether a card may be played now, and the other actions the rules allow right now."""
    kinds = {action["type"] for action in legal}
    buttons = []
    if game_name == "americana":
        if "draw" in kinds:
            buttons.append({"type": "draw", "label": _("Draw a card"), "key": "d"})
        if "take" in kinds:
            buttons.append(
                {"type": "take", "label": _("Take %(count)d cards") % {"count": view["owed"]}, "key": "t"}
            )
        if "sit_out" in kinds:
            # No key of its own: S opens the scores.
            buttons.append({"type": "sit_out", "label": _("Sit out a turn"), "key": ""})
    else:
        if "end" in kinds:
            buttons.append({"type": "end", "label": _("End the trick"), "key": "e"})
        if "take" in kinds:
            buttons.append({"type": "take", "label": _("Take the trick"), "key": "t"})
    return "play" in kinds, buttons


def table_screen(snapshot: TableSnapshot, user) -> Screen:
    table, match, state, names = snapshot.table, snapshot.match, snapshot.state, snapshot.names
    game = get_game(match.game)
    seat_rows = snapshot.seats
    my_seat = next((s.position for s in seat_rows if user.is_authenticated and s.user_id == user.pk), None)
    view = game.view(state, my_seat)
    to_act = view["to_act"] if match.status == Match.Status.PLAYING else None
    teams = view.get("teams") if match.game == "classic" and len(view.get("teams", [])) == 2 else None
    team_of = {seat: index for index, members in enumerate(teams or []) for seat in members}
    my_team = team_of.get(my_seat)

    infos = []
    for row in seat_rows:
        team = team_of.get(row.position)
        infos.append(
            SeatInfo(
                position=row.position,
                name=names[row.position],
                is_me=row.position == my_seat,
                is_bot=row.is_bot,
                taken_over=row.is_taken_over,
                to_act=row.position == to_act,
                cards=view["hand_counts"][row.position],
                team=team,
                captured=view["captured"][row.position] if match.game == "classic" else None,
                is_partner=my_team is not None and team == my_team and row.position != my_seat,
                level=row.get_bot_level_display() if row.is_bot else "",
            )
        )
    n = len(infos)
    start = my_seat if my_seat is not None else 0
    around = [infos[(start + i) % n] for i in range(n)]
    me = around[0] if my_seat is not None else None
    opponents = around[1:] if my_seat is not None else around

    screen = Screen(
        table=table,
        match=match,
        game=match.game,
        seat=my_seat,
        view=view,
        seats=infos,
        opponents=opponents,
        me=me,
        names=names,
    )
    if my_seat is not None and to_act == my_seat:
        legal = [game.action_to_json(a) for a in game.legal_actions(state)]
        playable = {a["card"] for a in legal if a["type"] == "play"}
        screen.my_turn = True
        screen.can_play, screen.buttons = _buttons(match.game, view, legal)
    else:
        playable = set()
    if view["hand"]:
        screen.hand = [{"code": code, "playable": code in playable} for code in view["hand"]]
    if to_act is not None and table.turn_clock and not infos[to_act].is_bot:
        screen.deadline = (match.turn_started_at + timedelta(seconds=table.turn_clock)).isoformat()
    screen.sides = [" & ".join(names[p] for p in members) for members in teams] if teams else names
    if to_act is not None:
        screen.to_act_name = names[to_act]
    screen.outcome_text = _outcome_text(match, view, screen.sides)
    if match.game == "americana":
        screen.aimed_text = _aimed_text(view, names, my_seat)
        if view["hands"] is not None:
            screen.laid_open = [
                {"name": name, "cards": cards, "charge": (view["charges"] or [0] * len(names))[i]}
                for i, (name, cards) in enumerate(zip(names, view["hands"], strict=True))
            ]
    else:
        screen.trick = [
            {"card": p["card"], "name": names[p["seat"]], "holds": p["cuts"] and p["seat"] == view["holder"]}
            for p in view["trick"]
        ]
        # The card that holds the trick is the holder's last cutting card.
        holding = [i for i, p in enumerate(screen.trick) if p["holds"]]
        for i in holding[:-1]:
            screen.trick[i]["holds"] = False
        screen.holder_text = _holder_text(view, names, my_seat, team_of)
    screen.log = snapshot.log_lines()
    screen.rounds = snapshot.rounds
    return screen


def _aimed_text(view: dict, names: list[str], my_seat: int | None) -> str:
    """What is waiting for the player to act: owed cards or a skip."""
    to_act = view["to_act"]
    if to_act is None or not (view["owed"] or view["skip"]):
        return ""
    mine = to_act == my_seat
    if view["owed"]:
        if mine:
            return ngettext(
                "%(count)d card is waiting for you: take it or answer with a draw card.",
                "%(count)d cards are waiting for you: take them or answer with a draw card.",
                view["owed"],
            ) % {"count": view["owed"]}
        return ngettext(
            "%(count)d card is waiting for %(name)s.",
            "%(count)d cards are waiting for %(name)s.",
            view["owed"],
        ) % {"count": view["owed"], "name": names[to_act]}
    if mine:
        return _("An ace: sit out a turn, or pass it on with an ace.")
    return _("An ace: %(name)s misses a turn unless they answer with an ace.") % {"name": names[to_act]}


def _holder_text(view: dict, names: list[str], my_seat: int | None, team_of: dict[int, int]) -> str:
    holder = view["holder"]
    if holder is None:
        return ""
    if holder == my_seat:
        return _("The trick is yours for now.")
    if my_seat is not None and team_of and team_of.get(holder) == team_of.get(my_seat):
        return _("The trick is your team's for now (%(name)s).") % {"name": names[holder]}
    return _("The trick is %(name)s's for now.") % {"name": names[holder]}


def _outcome_text(match: Match, view: dict, sides: list[str]) -> str:
    """How the finished round, deal or match came out, in one sentence."""
    if match.status == Match.Status.ABORTED:
        return _("The match was stopped: %(reason)s") % {"reason": _(match.abort_reason)}
    if view["match_over"]:
        winners = view["winners"]
        if not winners:
            return _("The match is over with no winner: the best totals are level.")
        if match.game == "classic" and len(sides) == 2 and len(view.get("teams", [])) == 2:
            team = next(i for i, members in enumerate(view["teams"]) if winners[0] in members)
            return _("%(name)s win the match.") % {"name": sides[team]}
        return _("%(name)s wins the match.") % {"name": " & ".join(sides[w] for w in winners)}
    if match.game == "americana" and view["awaiting_deal"]:
        if view["out"] is None:
            return _("Round %(round)d is over: nobody went out.") % {"round": view["round"]}
        return _("Round %(round)d is over: %(name)s went out.") % {
            "round": view["round"],
            "name": sides[view["out"]],
        }
    if match.game == "classic" and view["deal_over"]:
        winner = view["deal_winner"]
        if winner is None:
            return _("Deal %(deal)d is over: a tie.") % {"deal": view["deal"]}
        return _("Deal %(deal)d is over: %(name)s won it.") % {"deal": view["deal"], "name": sides[winner]}
    return ""
