"""What one viewer's table shows, built from the engine's seat view alone, for either game.

A ``Screen`` is plain data (no database rows, no Django), so the live table, the replay and the
offline practice table render the same templates from it. Each game's presenter (``americana``,
``classic``) fills in what only that game knows, from that game's typed seat view
(``AmericanaView``, ``ClassicView``); this module holds what both share.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, TypedDict

from gameplay.engine import IllegalAction
from gameplay.engine.americana import AmericanaView
from gameplay.engine.classic import ClassicView
from gameplay.engine.core import ActionJSON, Event

from .narration import describe
from .words import explain, ngettext
from .words import gettext as _

PLAYING, FINISHED, ABORTED = "playing", "finished", "aborted"
"""A match's status, as the server stores it."""
LOG_LENGTH = 8
"""The lines the table's log shows."""
LoggedMove = tuple[int | None, Sequence[Event]]
"""A move as the log tells it: the seat a bot stood in for (None if the seat acted itself), its events."""


@dataclass(frozen=True)
class Player:
    """Who holds a seat, as everyone at the table may know it."""

    name: str
    is_bot: bool = False
    level: str = ""
    """A bot's level in the reader's language ("normal"); "" for a person."""
    stood_in: bool = False
    """A bot plays for this person until they come back."""
    away_until: datetime | None = None
    """At a table at own pace: the end of the holiday this person is on now."""
    bot_account: bool = False
    """A person's seat held by a bot account (a program run through the API), marked as one."""


@dataclass(frozen=True)
class Finished:
    """A round (Americana) or deal (classic) as it was recorded when it ended."""

    number: int
    summary: Mapping[str, Any]


@dataclass
class SeatInfo:
    position: int
    name: str
    is_me: bool
    is_bot: bool
    taken_over: bool
    to_act: bool
    cards: int
    level: str = ""
    team: int | None = None
    captured: int | None = None
    """Classic: the points this seat captured in the deal."""
    is_partner: bool = False
    open_hand: list[str] | None = None
    """The seat's cards face up, for a replay of a finished match; None at a live table."""
    away_until: datetime | None = None
    """At a table at own pace: the end of the holiday the seat's person is on now."""
    bot_account: bool = False
    """The seat is a bot account's, marked as one beside its name."""


@dataclass
class HandCard:
    code: str
    playable: bool
    names_suit: bool = False
    """Playing it asks which suit to name (an Americana seven): the engine's legal plays name one."""
    refusal: str = ""
    """Why it may not be played now, in the reader's language, on the player's turn ("" if it may):
    the page says it when the card is picked, with no round trip to the server."""


class LaidOpenHand(TypedDict):
    """Americana: one seat's hand laid open when a round ends, and what it was charged."""

    name: str
    cards: list[str]
    charge: int


class ShownTrickCard(TypedDict):
    """Classic: one card of the trick, as the table shows it."""

    card: str
    name: str
    """Who played it."""
    holds: bool
    """It is the card that holds the trick for now."""


@dataclass
class Button:
    type: str
    label: str
    key: str
    """The keyboard key that presses it, or "" for none."""


@dataclass
class SheetCell:
    """One side in one row: what it was charged or scored then, and its running total."""

    value: int
    total: int
    went_out: bool = False
    reached: bool = False
    won: bool = False
    games_won: int | None = None


@dataclass
class SheetRow:
    number: int
    cells: list[SheetCell]
    note: str
    """Who went out or "nobody out" (Americana); the deal's winner or "a tie" (classic)."""
    dealer: str = ""
    reached: list[str] = field(default_factory=list)


@dataclass
class ScoreSheet:
    """The match's score sheet: a row per finished round or deal, the totals and the result."""

    game: str
    sides: list[str]
    goal: str
    rows: list[SheetRow]
    totals: list[int]
    games_won: list[int] | None
    result: str
    by_games: bool = False
    """Classic played to games won: each cell says the games too."""
    winner: int | None = None
    """The side that won the match, for the table's finish to honour; None until then, or level."""

    @property
    def final(self) -> list[tuple[int, int | None]]:
        """Each side's total and (classic) games won."""
        return list(zip(self.totals, self.games_won or [None] * len(self.totals), strict=True))


@dataclass
class Screen:
    """Everything the table shows one viewer (a seat, or a spectator with ``seat=None``)."""

    game: str
    seat: int | None
    title: str
    subtitle: str
    seats: list[SeatInfo]
    opponents: list[SeatInfo]
    me: SeatInfo | None
    names: list[str]
    sides: list[str]
    """Who scores together: each seat, or in four-player classic the partners ("Ana & Ion")."""
    stock_count: int
    to_act: int | None
    version: int = 0
    match_id: int | None = None
    hand: list[HandCard] = field(default_factory=list)
    my_turn: bool = False
    can_play: bool = False
    play_label: str = ""
    buttons: list[Button] = field(default_factory=list)
    to_act_name: str = ""
    deadline: str | None = None
    pace: str = ""
    """At a table at its players' own pace, the time per move ("1 day a move"); "" at a live table."""
    time_left: str = ""
    """At own pace, how long is left for the move waited for ("1 day 3 hours left"), as of the screen."""
    next_deal_at: str | None = None
    """When the next round or deal is dealt (ISO 8601), for the round-over sheet's countdown."""
    log: list[str] = field(default_factory=list)
    outcome_text: str = ""
    on_show: str = ""
    """Which score sheet covers the table: "match" once it is over, "round" between rounds or deals."""
    sheet: ScoreSheet | None = None
    # Americana
    top: str = ""
    suit: str = ""
    """The suit in force (S H D C), or "" when anything goes (after a joker)."""
    aimed_text: str = ""
    hit: str = ""
    """What hits the seat to act: cards it owes, or the ace's missed turn."""
    laid_open: list[LaidOpenHand] = field(default_factory=list)
    # Classic
    trick: list[ShownTrickCard] = field(default_factory=list)
    cutting_rank: str = ""
    holder_text: str = ""
    captured: list[int] = field(default_factory=list)


Told = dict[str, tuple[list[str], ScoreSheet]]
"""What every viewer of a table's version is told alike (``Presenter.screen``'s ``common``): the log's
lines and the score sheet, in the active language."""


class Presenter[View: (AmericanaView, ClassicView)]:
    """A game's screens, words and score sheet, read from its own seat view (``View``, the engine's
    ``TypedDict`` for the game). Subclasses say what their game alone knows."""

    game: ClassVar[str]
    label: ClassVar[str]
    """The game's name, marked for translation."""
    averaged: ClassVar[str]
    """What a player's profile averages per round or deal: a key of the recorded summary."""
    summary_keys: ClassVar[tuple[str, ...]]
    """What a score-sheet row keeps of the public view when a round or deal ends."""

    def round_summary(self, public: View) -> dict[str, object]:
        """The score-sheet row of the round or deal that just ended, from its public view."""
        fields: Mapping[str, object] = public  # read by the names in ``summary_keys``
        return {key: fields[key] for key in self.summary_keys}

    # --- Words about the options and the result -----------------------------------------------------

    def goal(self, options: Mapping[str, Any]) -> str:
        """What the match is played to."""
        raise NotImplementedError

    def option_labels(self, options: Mapping[str, Any]) -> list[str]:
        """The table's options as short phrases a player reads at a glance."""
        raise NotImplementedError

    def teams(self, options: Mapping[str, Any]) -> list[list[int]]:
        """The seats that score together, side by side."""
        return [[seat] for seat in range(options["players"])]

    def sides(self, names: Sequence[str], options: Mapping[str, Any]) -> list[str]:
        return [" & ".join(names[seat] for seat in members) for members in self.teams(options)]

    def result(
        self,
        status: str,
        winners: Sequence[int],
        names: Sequence[str],
        options: Mapping[str, Any],
        reason: str = "",
    ) -> str:
        """How the match came out in a sentence; ``reason`` (marked for translation) says why it stopped."""
        if status == ABORTED:
            return _("The match was stopped: %(reason)s") % {"reason": _(reason) if reason else ""}
        if status == PLAYING:
            return _("The match is still being played.")
        if not winners:
            return _("No winner: the best totals are level.")
        teams = self.teams(options)
        team = next(members for members in teams if winners[0] in members)
        name = " & ".join(names[seat] for seat in team)
        if len(team) > 1:
            return _("%(name)s win the match.") % {"name": name}
        return _("%(name)s wins the match.") % {"name": name}

    @staticmethod
    def log_lines(log: Sequence[LoggedMove], names: Sequence[str]) -> list[str]:
        """The log's last lines, told in the active language."""
        return [
            line
            for stood_in, events in log
            for event in events
            if (line := describe(event, names, stood_in=stood_in))
        ][-LOG_LENGTH:]

    def score_sheet(
        self,
        rounds: Sequence[Finished],
        names: Sequence[str],
        options: Mapping[str, Any],
        totals: Sequence[int],
        games_won: Sequence[int] | None,
        result: str,
    ) -> ScoreSheet:
        return ScoreSheet(
            game=self.game,
            sides=self.sides(names, options),
            goal=self.goal(options),
            rows=[self.sheet_row(done, names, options) for done in rounds],
            totals=list(totals),
            games_won=None if games_won is None else list(games_won),
            result=result,
            by_games=self.plays_to_games(options),
        )

    def plays_to_games(self, options: Mapping[str, Any]) -> bool:
        """Whether games won, not points, decide the match."""
        return False

    def standings(
        self, options: Mapping[str, Any], totals: Sequence[int], games_won: Sequence[int] | None
    ) -> list[int]:
        """What decides the match, side by side: the totals, or (classic played to games) games won."""
        return list(games_won if self.plays_to_games(options) and games_won is not None else totals)

    def sheet_row(self, done: Finished, names: Sequence[str], options: Mapping[str, Any]) -> SheetRow:
        raise NotImplementedError

    # --- The table --------------------------------------------------------------------------------

    def screen(
        self,
        view: View,
        *,
        players: Sequence[Player],
        legal: Sequence[ActionJSON] = (),
        status: str = PLAYING,
        reason: str = "",
        rounds: Sequence[Finished] = (),
        log: Sequence[LoggedMove] = (),
        deadline: str | None = None,
        next_deal_at: str | None = None,
        version: int = 0,
        match_id: int | None = None,
        open_hands: Sequence[Sequence[str]] | None = None,
        refusals: Mapping[str, IllegalAction] | None = None,
        common: Told | None = None,
    ) -> Screen:
        """The table as ``view``'s seat sees it (``legal``: that seat's legal actions in JSON, when it is to
        act; ``refusals``: why each card it holds but may not play is refused, by card code, from
        ``engine.play_refusals``; ``log``: the last moves' public events, each with the seat a bot stood
        in for; ``open_hands``: every hand, for a replay once the match is over). ``common`` keeps what
        every viewer of the same version sees alike in the active language (the log's lines, the score
        sheet): the first screen fills it, the others reuse it."""
        common = {} if common is None else common
        if view["match_over"] and status == PLAYING:  # a table with no server (practice) says so itself
            status = FINISHED
        seat = view["seat"]
        options = view["options"]
        names = [player.name for player in players]
        to_act = view["to_act"] if status == PLAYING else None
        teams = self.teams(options)
        team_of = {member: index for index, members in enumerate(teams) for member in members}
        paired = len(teams) < len(players)
        infos = [
            SeatInfo(
                position=position,
                name=player.name,
                is_me=position == seat,
                is_bot=player.is_bot,
                taken_over=player.stood_in,
                bot_account=player.bot_account,
                to_act=position == to_act,
                cards=view["hand_counts"][position],
                level=player.level,
                team=team_of[position] if paired else None,
                is_partner=paired
                and seat is not None
                and position != seat
                and team_of[position] == team_of[seat],
                open_hand=list(open_hands[position]) if open_hands is not None else None,
                away_until=player.away_until,
            )
            for position, player in enumerate(players)
        ]
        start = seat if seat is not None else 0
        around = [infos[(start + i) % len(infos)] for i in range(len(infos))]
        sides = self.sides(names, options)
        over = status != PLAYING
        result = self.result(status, view["winners"], names, options, reason) if over else ""
        if "told" not in common:  # one key for both: a viewer on another thread sees both or neither
            totals, games_won = view["totals"], self.games_won(view)
            # The result heads the table's own match-over sheet: the score sheet does not say it again.
            sheet = self.score_sheet(rounds, names, options, totals, games_won, "")
            common["told"] = (self.log_lines(log, names), sheet)
        log_lines, sheet = common["told"]
        screen = Screen(
            game=self.game,
            seat=seat,
            title=_(self.label),
            subtitle=self.subtitle(view),
            seats=infos,
            opponents=around[1:] if seat is not None else around,
            me=around[0] if seat is not None else None,
            names=names,
            sides=sides,
            stock_count=view["stock_count"],
            to_act=to_act,
            version=version,
            match_id=match_id,
            to_act_name=names[to_act] if to_act is not None else "",
            deadline=deadline,
            next_deal_at=next_deal_at,
            log=log_lines,
            sheet=sheet,
        )
        playable = {action["card"] for action in legal if action["type"] == "play"}
        suited = {action["card"] for action in legal if "suit" in action}
        if seat is not None and to_act == seat:
            screen.my_turn = True
            screen.can_play = bool(playable)
            screen.buttons = self.buttons(view, {action["type"] for action in legal})
            screen.play_label = self.play_label(view)
        refused = refusals if screen.my_turn and refusals else {}
        screen.hand = [
            HandCard(
                code=code,
                playable=code in playable,
                names_suit=code in suited,
                refusal=explain(refused[code].template, refused[code].params) if code in refused else "",
            )
            for code in view["hand"] or ()
        ]
        if over:
            screen.on_show = "match"
            screen.outcome_text = result
            if status == FINISHED and view["winners"]:
                sheet.winner = next(i for i, members in enumerate(teams) if view["winners"][0] in members)
        elif self.between_rounds(view):
            screen.on_show = "round"
            screen.outcome_text = self.round_outcome(view, sides)
        self.fill(screen, view, team_of if paired else {})
        return screen

    def subtitle(self, view: View) -> str:
        raise NotImplementedError

    def games_won(self, view: View) -> list[int] | None:
        return None

    def buttons(self, view: View, kinds: set[str]) -> list[Button]:
        """The actions besides playing a card that the rules allow now."""
        raise NotImplementedError

    def play_label(self, view: View) -> str:
        return _("Play")

    def between_rounds(self, view: View) -> bool:
        raise NotImplementedError

    def round_outcome(self, view: View, sides: Sequence[str]) -> str:
        raise NotImplementedError

    def fill(self, screen: Screen, view: View, team_of: Mapping[int, int]) -> None:
        """The game's own parts of the screen: the pile or the trick, and what they say."""
        raise NotImplementedError

    def replay_deal_line(self, view: View, names: Sequence[str]) -> str:
        """What a replay says as a round or deal is dealt."""
        raise NotImplementedError


def players_count_label(players: int) -> str:
    return ngettext("%d player", "%d players", players) % players


def bot_name(position: int) -> str:
    """A bot is named by its seat ("Bot 3"), at a table, in history and at practice alike."""
    return _("Bot %(number)d") % {"number": position + 1}
