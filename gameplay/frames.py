"""A table's update for one viewer: the fragments of ``gameplay/table.html`` that changed since the
viewer's last update, and the moves' public events for the page to animate and announce.

The websocket (``gameplay.consumers``) and the offline practice table (``practice.offline``, under
Pyodide in the browser) both send these, so the page cannot tell one from the other. Imports the
presenters and the standard library only: the template engine comes in as ``render``.
"""

import html
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial

from .engine.core import gettext_noop, render_reason
from .engine.step import NOT_A_MOVE
from .games import words
from .games.narration import describe
from .games.screen import Button, HandCard, LoggedMove, Screen, SeatInfo

PLAY_FRAGMENTS = ("topbar", "opponents", "center", "hand", "log", "outcome", "notice")
MOTION_KEYS = ("type", "seat", "card", "count", "cuts", "cards")
"""What the page's motion reads of a public event; nothing else of it goes out with a frame."""

MAX_FRAME = 4096
ACTION_TYPES = {"play", "draw", "take", "sit_out", "end"}

Render = Callable[[str, dict], str]
Sent = dict[str, object]
"""What a viewer was last sent: each fragment's markup by name, and the shape of its hand (``hand_shape``)."""


class MarkupMemo:
    """Markup already rendered, by template, language and the ``repr`` of each value it was given.

    A table's update renders every viewer's opponents, hand and score sheet, yet from one move to
    the next most of those pieces are the same for every viewer: the seat that did not move, the
    cards still in hand, the sheet until a round ends. The pieces' templates read only the values
    passed to them (and the language), and those values are plain dataclasses, strings and numbers
    whose ``repr`` says everything they hold, so equal reprs mean equal markup.

    At most ``size`` entries, the least recently used going first; and an entry first rendered for
    an owner (a table's update, ``owned_by``) goes with that owner (``release``): a table's pieces
    (its people's tiles, its turn lines) are of no use to any other, and a process that serves tables
    for weeks keeps those of the tables shown now, not a memo filled with the ones that ended. A piece
    every table shows alike (a card) goes too, and the next table to show it renders it again."""

    def __init__(self, size: int, live: Callable[[Hashable], bool] = lambda _owner: True) -> None:
        self.size = size
        self.live = live
        """Whether an owner has not ended yet: what is rendered for one that has (a table's update
        finishing after its last page left) is not kept."""
        self.entries: OrderedDict[tuple[str, ...], str] = OrderedDict()
        self.owners: dict[tuple[str, ...], Hashable] = {}
        """The owner each owned entry was first rendered for."""
        self.owned: dict[Hashable, set[tuple[str, ...]]] = {}
        """Each owner's entries."""
        self.lock = threading.Lock()

    @contextmanager
    def owned_by(self, owner: Hashable) -> Iterator[None]:
        """Entries rendered within are ``owner``'s (on this thread or task only)."""
        token = _OWNER.set(owner)
        try:
            yield
        finally:
            _OWNER.reset(token)

    def release(self, owner: Hashable) -> None:
        """The owner ended: its entries go."""
        with self.lock:
            for key in self.owned.pop(owner, ()):
                self.entries.pop(key, None)
                del self.owners[key]

    def render(
        self, render: Render, template_name: str, values: dict, language: str, *, key: tuple = ()
    ) -> str:
        """``key``, when given, stands for the ``repr`` of the values: everything of them the template
        reads, cheaper to make where a piece is looked up many times per update (a hand's cards)."""
        key = (template_name, language, *(key or (f"{name}={value!r}" for name, value in values.items())))
        with self.lock:
            html = self.entries.get(key)
            if html is not None:
                self.entries.move_to_end(key)
                return html
        html = render(template_name, values)
        owner = _OWNER.get()
        with self.lock:
            if owner is not None and not self.live(owner):
                return html
            self.entries[key] = html
            if owner is not None and key not in self.owners:
                self.owners[key] = owner
                self.owned.setdefault(owner, set()).add(key)
            if len(self.entries) > self.size:
                evicted, _html = self.entries.popitem(last=False)
                self._disown(evicted)
        return html

    def _disown(self, key: tuple[str, ...]) -> None:
        owner = self.owners.pop(key, None)
        if owner is not None:
            keys = self.owned[owner]
            keys.discard(key)
            if not keys:
                del self.owned[owner]


_OWNER: ContextVar[Hashable | None] = ContextVar("markup_owner", default=None)
"""Whose the entries rendered now are (``MarkupMemo.owned_by``): none outside a table's update."""

MARKUP = MarkupMemo(size=16384)
"""About sixteen megabytes at most: an entry (its key and markup) is about a kilobyte for a tile or a
hand, up to ten for a long score sheet, of which a process holds few. Sized for the tables a busy
process serves: each keeps a few dozen pieces alive (its seats' tiles, turn lines, hands' openings
and cards), and at 2048 entries fifty tables a process evicted each other's before they came back."""


@dataclass(frozen=True)
class TopBar:
    """What the table's top bar shows (``table.html#topbar`` reads it as ``screen``): the same for
    every viewer, and the same from one move to the next until a deal's points or the sheet change."""

    title: str
    subtitle: str
    names: list[str]
    captured: list[int]
    sheet: object


def notice_fragment(render: Render, notice: str, *, sent: Sent) -> str:
    """The table's notice (why a move was refused), noted as what this viewer was last ``sent``."""
    html = render("gameplay/table.html#notice", {"notice": notice})
    sent["notice"] = html
    return html


def told_events(moves: Sequence[LoggedMove], names: list[str]) -> list[dict]:
    """The public events of ``moves``, oldest first, each with its line of the log (``said``)."""
    told = []
    for stood_in, events in moves:
        for event in events:
            public = {key: event[key] for key in MOTION_KEYS if key in event}
            if said := describe(event, names, stood_in=stood_in):
                public["said"] = said
            told.append(public)
    return told


def _once(shared: dict[tuple, str] | None, key: tuple | None, make: Callable[[], str]) -> str:
    """``make()``, or what it made for another viewer's update of the same version (``shared``)."""
    if shared is None or key is None:
        return make()
    if key not in shared:
        shared[key] = make()
    return shared[key]


def _rendered(
    render: Render, template: str, context: dict, shared: dict[tuple, str] | None, key: tuple | None
) -> str:
    """``template`` rendered, or taken from ``shared`` where another viewer's update rendered it."""
    return _once(shared, key, lambda: render(template, context))


def play_fragments(
    render: Render,
    context: dict,
    *,
    sent: Sent,
    events: list[dict],
    language: str,
    shared: dict[tuple, str] | None = None,
) -> list[str]:
    """The fragments of the table that differ from what this viewer was last ``sent`` (which is
    updated), preceded by the events partial when there are ``events``, all in ``language``.
    ``shared`` caches the fragments every viewer of the same version sees alike (the viewers of one
    move are told the same events, too)."""
    parts = []
    if events:
        told = json.dumps(events)
        key = ("events", language, told)
        parts.append(_rendered(render, "gameplay/table.html#events", {"events": told}, shared, key))
    for name in PLAY_FRAGMENTS:
        if name == "hand":
            parts.extend(_hand_fragments(render, context, sent=sent, shared=shared, language=language))
            continue
        html = _fragment(render, name, context, shared, language)
        if sent.get(name) != html:
            sent[name] = html
            parts.append(html)
    return parts


def _fragment(
    render: Render, name: str, context: dict, shared: dict[tuple, str] | None, language: str
) -> str:
    """One fragment of the table, rendered once for all who see it alike: the top bar, the empty
    notice and (while a round is played) the empty outcome until what they show changes, the log and
    the centre once per version, the opponents from tiles kept from move to move."""
    screen: Screen = context["screen"]
    if name == "opponents":
        return _opponents(render, screen, shared, language)
    if name == "topbar":
        top = TopBar(screen.title, screen.subtitle, screen.names, screen.captured, screen.sheet)
        topbar = partial(MARKUP.render, render, "gameplay/table.html#topbar", {"screen": top}, language)
        return _once(shared, ("topbar", language), topbar)
    if name == "log":
        return _log(render, screen, shared, language)
    if name == "notice":
        return MARKUP.render(render, "gameplay/table.html#notice", {"notice": context["notice"]}, language)
    if name == "outcome" and not screen.on_show:
        return MARKUP.render(render, "gameplay/table.html#outcome", {}, language)
    # The centre says the same to every viewer but where it names the one reading (an aimed draw,
    # the trick's holder); what is left (the outcome on show) is made for one viewer only.
    key = (name, language, screen.aimed_text, screen.holder_text) if name == "center" else None
    return _rendered(render, f"gameplay/table.html#{name}", context, shared, key)


LOG_END = "\n</ol>\n"
"""How ``table.html#log`` ends, after its lines."""


def _log(render: Render, screen: Screen, shared: dict[tuple, str] | None, language: str) -> str:
    """``table.html#log`` put together from its opening and its lines (escaped as the template
    would), once per version for every viewer."""

    def joined() -> str:
        opening = MARKUP.render(render, "gameplay/table.html#log-open", {}, language)
        return opening + "".join(f"<li>{html.escape(line)}</li>" for line in screen.log) + LOG_END

    return _once(shared, ("log", language), joined)


OPPONENTS_END = "\n</ul>\n"
"""How ``table.html#opponents`` ends, after its tiles."""


def _opponents(render: Render, screen: Screen, shared: dict[tuple, str] | None, language: str) -> str:
    """``table.html#opponents`` put together from its opening and its tiles. A seat's tile is the same
    for every viewer of a version but for whether it is the viewer's partner (and for the next move,
    unless the seat moved or is to move): each is taken from the version's pieces, else from those
    kept from move to move; only their order is the viewer's."""

    def tile(seat: SeatInfo) -> str:
        values = {"s": seat, "hit": screen.hit}
        key = ("tile", language, seat.position, seat.is_partner)
        return _once(shared, key, partial(MARKUP.render, render, "gameplay/_opponent.html", values, language))

    opening = MARKUP.render(render, "gameplay/table.html#opponents-open", {}, language)
    return opening + "".join(tile(seat) for seat in screen.opponents) + OPPONENTS_END


def turn_key(screen: Screen) -> tuple:
    """Everything ``table.html#turn`` shows besides the version: one rendering serves every viewer of
    a version with the same key (every seat but the one to act, say)."""
    me = screen.me
    mine = (me.taken_over if me else None, screen.hit if screen.my_turn else "")
    shown = (me is not None, screen.my_turn, screen.to_act, screen.to_act_name, screen.deadline)
    return (*shown, screen.pace, screen.time_left, *mine)


@dataclass(frozen=True)
class TurnSeat:
    """What the turn line reads of the viewer's seat."""

    taken_over: bool


@dataclass(frozen=True)
class TurnLine:
    """What ``table.html#turn`` reads of the screen (as ``screen``). Rendered without its version and
    its clock's deadline (``UNVERSIONED``, ``UNTIMED``), which are put in afterwards: the same line
    comes back every few moves (whose turn it is goes round the table), so it is rendered once and kept."""

    me: TurnSeat | None
    my_turn: bool
    hit: str
    to_act: int | None
    to_act_name: str
    deadline: str | None
    pace: str = ""
    time_left: str = ""
    version: int = -1


UNVERSIONED = 'name="version" value="-1"'
UNTIMED = 'data-deadline="deadline"'
"""The turn line's version field and clock as ``TurnLine`` renders them: no name or text on the line
can read so, their quotes being escaped."""


def turn_line(render: Render, screen: Screen, language: str) -> str:
    """``table.html#turn`` for ``screen``, from the line kept for its look."""
    me = TurnSeat(screen.me.taken_over) if screen.me else None
    hit = screen.hit if screen.my_turn else ""
    clocked = "deadline" if screen.deadline else None
    line = TurnLine(
        me, screen.my_turn, hit, screen.to_act, screen.to_act_name, clocked, screen.pace, screen.time_left
    )
    markup = MARKUP.render(render, "gameplay/table.html#turn", {"screen": line}, language)
    markup = markup.replace(UNVERSIONED, f'name="version" value="{int(screen.version)}"', 1)
    if screen.deadline:
        markup = markup.replace(UNTIMED, f'data-deadline="{html.escape(screen.deadline)}"', 1)
    return markup


def hand_shape(screen: Screen) -> tuple:
    """Everything the hand's markup shows but its turn line: the same shape, the same markup (for one
    viewer, whose language does not change). Compared field by field, never printed."""
    me = screen.me.name if screen.me else None
    shown = (screen.game, screen.match_id, me, tuple(screen.hand), screen.my_turn, screen.can_play)
    return (*shown, screen.play_label, tuple(screen.buttons))


@dataclass(frozen=True)
class HandHolder:
    """What the hand's opening tag reads of the viewer's seat."""

    name: str


@dataclass(frozen=True)
class HandOpening:
    """What the hand's opening tag (``table.html#hand-open``) reads of the screen (as ``screen``)."""

    match_id: int | None
    me: HandHolder | None


@dataclass(frozen=True)
class HandFoot:
    """What the end of the hand's body (``table.html#hand-foot``: the hint, the turn's buttons) reads of
    the screen (as ``screen``)."""

    can_play: bool
    my_turn: bool
    play_label: str
    game: str
    buttons: tuple[Button, ...]


HAND_END = "</form>\n"
"""How ``table.html#hand`` ends, after its body."""
HAND_BODY_OPEN, HAND_BODY_END = "\n  ", "\n"
"""How ``table.html#hand-body`` begins and ends, around what it shows of a seat's hand."""


def hand_cards(render: Render, hand: Sequence[HandCard], my_turn: bool, language: str) -> str:
    """A hand's cards (``gameplay/_hand_card.html``), each rendered once per look and language: from one
    move to the next a hand loses or gains a card or two, and the others look as they did."""
    return "".join(
        MARKUP.render(
            render,
            "gameplay/_hand_card.html",
            {"c": card, "dim": dim},
            language,
            key=(card.code, card.names_suit, card.refusal, dim),
        )
        for card in hand
        for dim in [my_turn and not card.playable]
    )


def _hand_body(render: Render, screen: Screen, language: str) -> str:
    """``table.html#hand-body`` put together from its cards and the pieces around them, each kept for its
    look: nothing of it is rendered for this viewer but a card not seen before."""
    if screen.me is None:
        return HAND_BODY_OPEN + HAND_BODY_END
    opening = MARKUP.render(render, "gameplay/table.html#hand-cards-open", {}, language)
    if screen.hand:
        cards = hand_cards(render, screen.hand, screen.my_turn, language)
    else:
        cards = MARKUP.render(render, "gameplay/table.html#hand-empty", {}, language)
    foot = HandFoot(screen.can_play, screen.my_turn, screen.play_label, screen.game, tuple(screen.buttons))
    end = MARKUP.render(render, "gameplay/table.html#hand-foot", {"screen": foot}, language)
    return HAND_BODY_OPEN + opening + cards + end + HAND_BODY_END


def _hand(render: Render, context: dict, turn: str, language: str) -> str:
    """``table.html#hand`` put together from its opening (the same on every update of a seat), the turn
    line already made, and its body."""
    screen: Screen = context["screen"]
    opening = HandOpening(screen.match_id, HandHolder(screen.me.name) if screen.me else None)
    head = MARKUP.render(render, "gameplay/table.html#hand-open", {"screen": opening}, language)
    return head + turn + _hand_body(render, screen, language) + HAND_END


def _hand_fragments(
    render: Render, context: dict, *, sent: Sent, shared: dict[tuple, str] | None, language: str
) -> list[str]:
    """The hand, or only its turn line when nothing else of it changed. The line (whose turn it is, the
    clock, the version a move is made against) changes with every move; the cards and buttons only
    for the seats a move concerns, so the others' hands are neither rendered nor sent again."""
    screen: Screen = context["screen"]
    turn = _once(shared, ("turn", language, *turn_key(screen)), lambda: turn_line(render, screen, language))
    shape = hand_shape(screen)
    if sent.get("hand") != shape:
        sent["hand"], sent["turn"] = shape, turn
        return [_hand(render, context, turn, language)]
    if sent.get("turn") != turn:
        sent["turn"] = turn
        return [turn]
    return []


class ActionRefused(Exception):
    """A move that was not made. ``explain()`` says why in the active language; ``stale``
    marks a move made against a version the match has left (harmless: show the table anew), and
    ``version`` is the one it is at, when known (a page behind is shown that version, with no read
    where it is held already)."""

    def __init__(
        self, template: str, params: dict | None = None, *, stale: bool = False, version: int | None = None
    ) -> None:
        self.template = template
        self.params = params or {}
        self.stale = stale
        self.version = version
        super().__init__(render_reason(template, self.params))

    def explain(self) -> str:
        return words.explain(self.template, self.params)


UNREADABLE = gettext_noop("That message could not be read.")
VERSION_TEXT = re.compile(r"[0-9]{1,12}")
CARD_TEXT = re.compile(r"[0-9A-Z]{2,3}")
SUITS = {"S", "H", "D", "C"}


@dataclass(frozen=True)
class Frame:
    """A frame read and checked whole: the version it was made against and what it asks for
    (``action`` is None for "I'm back")."""

    version: int
    action: dict | None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a frame may hold")


def parse_frame(text_data: str | None) -> Frame | ActionRefused:
    """The frame a client sent, checked in every part before anything uses it, or why it is refused.

    Frames are htmx's form messages: every value a string (a version may also come as a JSON
    integer). Anything else (NaN, infinities, floats, booleans, lists or objects where a word
    belongs, nesting too deep to read) is refused, never passed on.
    """
    if not isinstance(text_data, str) or len(text_data) > MAX_FRAME:
        return ActionRefused(UNREADABLE)
    try:
        frame = json.loads(text_data, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return ActionRefused(UNREADABLE)
    if not isinstance(frame, dict):
        return ActionRefused(UNREADABLE)
    version = frame.get("version")
    if type(version) is str and VERSION_TEXT.fullmatch(version):
        version = int(version)
    elif type(version) is not int or not 0 <= version < 10**12:
        return ActionRefused(UNREADABLE)
    kind, card, suit = frame.get("type"), frame.get("card"), frame.get("suit")
    if not all(value is None or type(value) is str for value in (kind, card, suit)):
        return ActionRefused(NOT_A_MOVE)
    kind = kind or ("play" if suit else None)
    if kind == "back":
        return Frame(version=version, action=None)
    if kind not in ACTION_TYPES:
        return ActionRefused(NOT_A_MOVE)
    if kind != "play":
        return Frame(version=version, action={"type": kind})
    if card is None or not CARD_TEXT.fullmatch(card):
        return ActionRefused(NOT_A_MOVE)
    action = {"type": "play", "card": card}
    if suit:  # only a seven may name one: the engine refuses any other card that does
        if suit not in SUITS:
            return ActionRefused(NOT_A_MOVE)
        action["suit"] = suit
    return Frame(version=version, action=action)
