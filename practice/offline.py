"""The practice table: a match against bots that runs wholly on the player's device.

In the browser this module runs under Pyodide in a Web Worker, with the server's own engine
(``gameplay.engine``), bots (``bots.policies``), presenters (``gameplay.games``), frames
(``gameplay.frames``) and templates. It speaks to the page exactly as the table's websocket does:
it takes htmx's form messages and answers with the changed fragments of ``gameplay/table.html``,
so the page runs the live table's own scripts. Nothing here reads a database or the network; the
page keeps the match's record (options, seed, actions) on the device and resumes from it.

A bot decides from its seat's view and legal actions only, through ``bots.turn.decide``, as the
server's bot task does, and a move is made by the engine's ``step``, as the server makes one. The
player's screen is built from ``engine.view`` for seat 0 alone.
"""

import json
import random
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from bots.review import FORMAT, Judged, decision_points, judge, match_accuracy
from bots.turn import decide
from gameplay import frames
from gameplay.engine import IllegalAction, play_refusals
from gameplay.engine.core import Event, gettext_noop
from gameplay.engine.replay import ReplayError, replay
from gameplay.engine.step import Step, step
from gameplay.games import presenter, words
from gameplay.games.review import summarize
from gameplay.games.screen import LOG_LENGTH, Finished, Player, bot_name

PLAYER_SEAT = 0
"""The person always sits at seat 0; every other seat is a bot."""
LEVEL_LABELS = {"easy": gettext_noop("easy"), "normal": gettext_noop("normal"), "hard": gettext_noop("hard")}
NO_MATCH = gettext_noop("This practice match is over.")


@dataclass
class Pace:
    """How long the table waits before a bot's move (a random pause within the range, like an online
    bot's) and before the next round or deal, in seconds."""

    bot: tuple[float, float] = (0.6, 1.5)
    fast_bot: tuple[float, float] = (0.2, 0.4)
    round: float = 6.0


@dataclass
class PracticeTable:
    """One practice match as seat 0 sees it, and what the page was last sent of it."""

    record: dict[str, Any]
    """What the device keeps and "Save to my history" uploads: game, options, seed, seat, bots,
    actions, started_at, finished_at, fast_bots, bundle."""
    language: str
    player_name: str
    pace: Pace = field(default_factory=Pace)
    version: int = 0
    sent: frames.Sent = field(default_factory=dict)
    log: list[frames.LoggedMove] = field(default_factory=list)
    rounds: list[Finished] = field(default_factory=list)
    round_events: list[Event] = field(default_factory=list)
    """The public events of the round being played, for the hard bot's reading of it."""
    unsent_moves: int = 0
    """Moves made since the page was last sent a frame (their events animate on the next one)."""
    last_decision_ms: float | None = None
    """How long the last bot took to choose (for the practice benchmark), None after a deal."""
    last_level: str = ""
    next_deal_at: str | None = None
    """When the next round or deal is dealt (the round-over sheet counts down to it)."""

    def __post_init__(self) -> None:
        """The match replayed from its record by the engine's own replay (as the server checks a saved
        one); ValueError, naming the step, when it does not replay with this version."""
        try:
            replayed = replay(
                self.record["game"], self.record["options"], self.record["seed"], self.record["actions"]
            )
        except ReplayError as error:
            raise ValueError(str(error)) from None
        self.game, self.state = replayed.game, replayed.state
        self.presenter = presenter(self.record["game"])
        seats = len(self.game.view(self.state, None)["hand_counts"])
        if len(self.record["bots"]) != seats - 1 or not set(self.record["bots"]) <= set(LEVEL_LABELS):
            raise ValueError(
                f"A practice match of {seats} seats needs {seats - 1} bots, each easy, normal or hard."
            )
        for move in replayed.moves:
            if move.dealt is not None:
                self._dealt(move.dealt)
            self._moved(move)
        self.unsent_moves = 0

    # --- What the page asks -------------------------------------------------------------------------

    def page(self) -> str:
        """The whole table, for a page that shows it afresh (a new match, a reload, a resume)."""
        self.sent.clear()
        with translation.override(self.language):
            return render_to_string("gameplay/table.html#play", self._context())

    def connect(self) -> str:
        """Every fragment, for the page's table connection as it opens."""
        self.sent.clear()
        self.unsent_moves = 0
        return self._frame()

    def receive(self, text: str) -> str:
        """A frame from the page (htmx's form message): the move made and the table as it now is,
        or why not, in a notice."""
        frame = frames.parse_frame(text)
        if isinstance(frame, frames.ActionRefused):
            return self._notice(frame)
        if frame.action is None:  # "I'm back": no bot ever stands in at practice
            return self._frame()
        if frame.version != self.version:
            self.sent.clear()
            return self._frame()
        if self.game.is_over(self.state) or self.game.awaiting_deal(self.state):
            return self._notice(
                frames.ActionRefused(NO_MATCH if self.game.is_over(self.state) else frames.NOT_A_MOVE)
            )
        try:
            self._apply(PLAYER_SEAT, frame.action)
        except IllegalAction as error:  # a move the rules refuse, or no move at all (``NotAMove``)
            return self._notice(frames.ActionRefused(error.template, error.params))
        return self._frame()

    def due(self) -> float | None:
        """Seconds until the table moves by itself (a bot's move, the next deal), or None while it
        waits for the player or once the match is over."""
        if self.game.is_over(self.state):
            return None
        if self.game.awaiting_deal(self.state):
            return self.pace.round
        if self.game.to_act(self.state) == PLAYER_SEAT:
            return None
        low, high = self.pace.fast_bot if self.record.get("fast_bots") else self.pace.bot
        return random.uniform(low, high)

    def advance(self) -> str:
        """Make what is due (the bot's move, the next deal) and answer with the table as it now is."""
        if self.game.is_over(self.state):
            return ""
        self.last_decision_ms = None
        if self.game.awaiting_deal(self.state):
            self._dealt(self.game.next_round(self.state))
        else:
            seat = self.game.to_act(self.state)
            if seat == PLAYER_SEAT:
                return ""
            self._apply(seat, self._bot_choice(seat))
        return self._frame()

    @property
    def finished(self) -> bool:
        return self.game.is_over(self.state)

    def record_json(self) -> str:
        return json.dumps(self.record)

    def result_text(self) -> str:
        """The match's outcome in a sentence, for the device's list of past matches."""
        with translation.override(self.language):
            return self._context()["screen"].outcome_text

    # --- The match ----------------------------------------------------------------------------------

    def _bot_choice(self, seat: int) -> dict:
        """The bot's move, decided as the server's bot task decides one (``bots.turn.decide``)."""
        self.last_level = self.record["bots"][seat - 1]
        decision = decide(
            self.game,
            self.state,
            seat,
            self.last_level,
            seed=self.record["seed"],
            version=self.version,
            history=self.round_events,
        )
        self.last_decision_ms = decision.seconds * 1000
        return decision.action

    def _dealt(self, events: list[Event]) -> None:
        self.round_events = list(events)
        self.version += 1

    def _apply(self, seat: int, action_json: dict) -> None:
        """One move through the engine's ``step``, which refuses anything illegal; then logged and
        recorded."""
        made = step(self.game, self.state, seat, action_json)
        self.record["actions"].append(made.action)
        self._moved(made)
        if made.round_over is not None:
            self.next_deal_at = (datetime.now(UTC) + timedelta(seconds=self.pace.round)).isoformat()
        if self.game.is_over(self.state):
            self.record.setdefault("finished_at", _now())

    def _moved(self, made: Step) -> None:
        """A move made (now, or in the replay of the record): the log, the round's events, the sheet."""
        self.version += 1
        self.log = [*self.log, (None, made.events)][-LOG_LENGTH:]
        self.unsent_moves += 1
        self.round_events.extend(made.events)
        if (ended := made.round_over) is not None:
            self.rounds.append(Finished(ended.number, self.presenter.round_summary(ended.public)))
            self.round_events = []

    # --- What the page is sent ----------------------------------------------------------------------

    def _players(self) -> list[Player]:
        with translation.override(self.language):
            bots = [
                Player(name=bot_name(seat), is_bot=True, level=translation.gettext(LEVEL_LABELS[level]))
                for seat, level in enumerate(self.record["bots"], start=1)
            ]
        return [Player(name=self.player_name), *bots]

    def _context(self) -> dict:
        players = self._players()
        mine = not self.game.is_over(self.state) and self.game.to_act(self.state) == PLAYER_SEAT
        legal = (
            [self.game.action_to_json(action) for action in self.game.legal_actions(self.state)]
            if mine
            else ()
        )
        with translation.override(self.language):
            screen = self.presenter.screen(
                self.game.view(self.state, PLAYER_SEAT),
                players=players,
                legal=legal,
                rounds=self.rounds,
                log=self.log,
                version=self.version,
                next_deal_at=self.next_deal_at if self.game.awaiting_deal(self.state) else None,
                refusals=play_refusals(self.game, self.state) if mine else None,
            )
        return {"screen": screen, "practice": True, "notice": "", "LANGUAGE_CODE": self.language}

    def _frame(self) -> str:
        context = self._context()
        moved, self.unsent_moves = self.unsent_moves, 0
        with translation.override(self.language):
            events = frames.told_events(self.log[-moved:], context["screen"].names) if moved else []
            return "".join(
                frames.play_fragments(
                    render_to_string, context, sent=self.sent, events=events, language=self.language
                )
            )

    def _notice(self, refusal: frames.ActionRefused) -> str:
        with translation.override(self.language):
            return frames.notice_fragment(render_to_string, refusal.explain(), sent=self.sent)


# --- A finished match reviewed ----------------------------------------------------------------------


class PracticeReview:
    """The person's decisions in a finished practice match judged as ``bots.review.review`` judges them
    (from what seat 0 knew), one at a time: the worker answers the page between two decisions, so a
    new match plays on while an old one is reviewed, and the page shows how far it is."""

    def __init__(self, record: dict[str, Any]) -> None:
        try:
            replayed = replay(record["game"], record["options"], record["seed"], record["actions"])
        except ReplayError as error:
            raise ValueError(str(error)) from None
        if not replayed.game.is_over(replayed.state):
            raise ValueError("Only a finished match is reviewed.")
        self.game = record["game"]
        self.points = decision_points(
            self.game, record["options"], record["seed"], record["actions"], seats=[PLAYER_SEAT]
        )
        self.judged: list[Judged] = []

    @property
    def total(self) -> int:
        return len(self.points)

    @property
    def done(self) -> int:
        return len(self.judged)

    @property
    def finished(self) -> bool:
        return self.done == self.total

    def next(self) -> int:
        """Judge the next decision; returns how many are judged."""
        self.judged.append(judge(self.game, self.points[self.done], seed=0))
        return self.done

    def result_json(self) -> str:
        """What the device keeps of the review once finished: game, format, accuracy, decisions."""
        return json.dumps(
            {
                "game": self.game,
                "format": FORMAT,
                "accuracy": match_accuracy(self.game, [each.loss for each in self.judged]),
                "decisions": [each.to_json() for each in self.judged],
            }
        )


def start_review(record_json: str) -> PracticeReview:
    """The review of a finished practice match's record; ValueError when it does not replay or is not
    over."""
    return PracticeReview(json.loads(record_json))


def review_html(review_json: str, language: str) -> str:
    """A kept review (``PracticeReview.result_json``) as ``gameplay/_review.html``, with no replay to
    link to; "" for one made by another version's method, which is made again."""
    kept = json.loads(review_json)
    if kept.get("format") != FORMAT:
        return ""
    with translation.override(language):
        summary = summarize(kept["game"], kept["decisions"], kept["accuracy"])
        return render_to_string("gameplay/_review.html", {"review": summary})


# --- In the browser ---------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def configure(root: str, language_code: str, languages_json: str) -> None:
    """Django's template engine and translations from the bundle unpacked at ``root``, with no apps
    and no database: all the practice table needs of Django. (On the server, the site's settings.)
    The app registry is filled (empty) without ``django.setup``, whose logging and URL prefix would
    import half of Django for nothing on a player's phone."""
    settings.configure(
        USE_I18N=True,
        USE_TZ=True,
        LANGUAGE_CODE=language_code,
        LANGUAGES=[tuple(pair) for pair in json.loads(languages_json)],
        LOCALE_PATHS=[f"{root}/locale"],
        LOGGING_CONFIG=None,
        STATIC_URL="/static/",
        TEMPLATES=[
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "DIRS": [f"{root}/templates"],
                "OPTIONS": {"libraries": {"cards": "gameplay.templatetags.cards"}},
            }
        ],
    )
    apps.populate([])
    words.install(translation.gettext, translation.ngettext)


def warm(language: str) -> None:
    """Deal and draw a throwaway table once, so the templates are compiled and cached before the
    player's first match (the worker does this while the player chooses the options)."""
    pace = json.dumps({"bot": [0, 0], "fast_bot": [0, 0], "round": 0})
    record = new_record("americana", "{}", '["easy", "easy", "easy"]', False, "")
    open_table(record, language, "", pace).page()


def new_record(game: str, options_json: str, bots_json: str, fast_bots: bool, bundle: str) -> str:
    """A new practice match's record (JSON), dealt from a fresh seed."""
    record = {
        "game": game,
        "options": json.loads(options_json),
        # 53 bits: the page keeps the record as JavaScript, whose numbers hold integers that large exactly.
        "seed": secrets.randbits(53),
        "seat": PLAYER_SEAT,
        "bots": json.loads(bots_json),
        "fast_bots": bool(fast_bots),
        "actions": [],
        "started_at": _now(),
        "bundle": bundle,
    }
    return json.dumps(record)


def open_table(record_json: str, language: str, player_name: str, pace_json: str) -> PracticeTable:
    """The table of a record (a new match's, or one the device kept), replayed to where it stands.
    Raises ValueError, naming the step, when the record does not replay with this version."""
    pace = json.loads(pace_json)
    return PracticeTable(
        record=json.loads(record_json),
        language=language,
        player_name=player_name,
        pace=Pace(bot=tuple(pace["bot"]), fast_bot=tuple(pace["fast_bot"]), round=pace["round"]),
    )
