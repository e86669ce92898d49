"""A reviewed match in words and a drawing, for the match page, the replay and the practice table.

A review (``bots.review``) judges each decision of a person: every legal action's expected value
from what they knew, the best one, and what the chosen one lost. Here its decisions (``Judged``'s
JSON) become rows to read ("the 7 of clubs, naming hearts", "cost 4.2 points", "mistake") and a
small SVG of the expected result through the match. Like the other presenters this imports only the
engine and the standard library (the practice table reviews a match in the browser with it), so the
numbers are written here, in the reader's language, and the drawing is markup made here.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from .words import card_name, gettext_noop, suit_name
from .words import gettext as _

LABELS = ("inaccuracy", "mistake", "blunder")
"""The marks a decision may get, least to worst (``bots.review.LABELS``)."""
LABEL_WORDS = {
    "inaccuracy": gettext_noop("inaccuracy"),
    "mistake": gettext_noop("mistake"),
    "blunder": gettext_noop("blunder"),
}
DOT_RADIUS = {"inaccuracy": 3.0, "mistake": 4.0, "blunder": 5.0}
"""A marked decision's dot grows with its mark, so the drawing does not tell it by colour alone."""
WIDTH, HEIGHT = 340, 150
LEFT, RIGHT, TOP, BOTTOM = 36, 8, 10, 12
"""The drawing's size in its own units and the margins kept for the labels (as ``ratings.plot``)."""


def action_text(game: str, action: Mapping[str, Any]) -> str:
    """An action (the engine's JSON form) in words that fit a sentence: "the 7 of clubs, naming
    hearts", "draw a card", "end the trick"."""
    kind = action["type"]
    if kind == "play":
        if action.get("suit"):
            return _("the %(card)s, naming %(suit)s") % {
                "card": card_name(action["card"]),
                "suit": suit_name(action["suit"]),
            }
        return _("the %(card)s") % {"card": card_name(action["card"])}
    if kind == "draw":
        return _("draw a card")
    if kind == "sit_out":
        return _("sit out a turn")
    if kind == "end":
        return _("end the trick")
    if kind == "take":
        return _("take the cards") if game == "americana" else _("take the trick")
    raise ValueError(f"No words for the action {action!r} of {game}.")


def tenths(value: float) -> str:
    """A number with one decimal, with the reader's decimal mark ("4.2", "4,2")."""
    count = round(abs(value) * 10)
    # Translators: a number with one decimal (4.2): your language's decimal mark between the parts.
    number = _("%(whole)d.%(tenth)d") % {"whole": count // 10, "tenth": count % 10}
    return f"−{number}" if value < 0 and count else number


def loss_text(game: str, loss: float) -> str:
    """What a decision cost, in the game's unit: "cost 4.2 points" (the match's points, Americana),
    "cost 0.6 tens and aces" (the deal's, classic). A number with a decimal takes the plural."""
    if round(loss * 10) == 0:
        return _("cost almost nothing")
    if game == "americana":
        return _("cost %(amount)s points") % {"amount": tenths(loss)}
    return _("cost %(amount)s tens and aces") % {"amount": tenths(loss)}


@dataclass(frozen=True)
class ReviewRow:
    """One judged decision as a reader sees it."""

    number: int
    """The move's number in the match, from 1."""
    step: int
    """The replay's step that shows this move: the replay deals every round after the first in a step
    of its own before its first move, so it is ``number + round - 1``."""
    round: int
    seat: int
    played: str
    best: str
    """The best action in words, "" when the one played was the best."""
    loss: float
    loss_text: str
    label: str
    """"" (good), or one of ``LABELS``."""
    label_text: str
    expected: float
    """The chosen action's expected value (the game's unit)."""
    best_value: float


@dataclass(frozen=True)
class ReviewSummary:
    """A person's decisions in a match, judged: for ``gameplay/_review.html``."""

    game: str
    element_id: str
    """The prefix of the ids the markup gives its heading and drawing (two reviews on a page differ)."""
    accuracy: float | None
    """0–100, None with no decision to judge."""
    counts: dict[str, int]
    """Marked decisions by label (every label present, perhaps 0)."""
    rows: list[ReviewRow]
    marked: list[ReviewRow] = field(default_factory=list)
    plot: str = ""
    """The drawing's SVG markup (escaped here), "" with no decision."""


def row(game: str, decision: Mapping[str, Any]) -> ReviewRow:
    """A judged decision (``Judged.to_json()``) in words."""
    chosen, best = decision["chosen"], decision["best"]
    label = decision["label"]
    return ReviewRow(
        number=decision["number"],
        step=decision["number"] + decision["round"] - 1,
        round=decision["round"],
        seat=decision["seat"],
        played=action_text(game, decision["actions"][chosen]),
        best="" if best == chosen else action_text(game, decision["actions"][best]),
        loss=decision["loss"],
        loss_text="" if best == chosen else loss_text(game, decision["loss"]),
        label=label,
        label_text=_(LABEL_WORDS[label]) if label else "",
        expected=decision["values"][chosen],
        best_value=decision["values"][best],
    )


def summarize(
    game: str, decisions: Sequence[Mapping[str, Any]], accuracy: float | None, *, element_id: str = "review"
) -> ReviewSummary:
    """The review of ``decisions`` (``Judged.to_json()`` dicts, in the match's order) with the match's
    ``accuracy``; ``element_id`` keeps the markup's ids apart when a page shows more than one review."""
    rows = [row(game, decision) for decision in decisions]
    marked = [each for each in rows if each.label]
    counts = {label: sum(1 for each in marked if each.label == label) for label in LABELS}
    return ReviewSummary(
        game=game,
        element_id=element_id,
        accuracy=accuracy,
        counts=counts,
        rows=rows,
        marked=marked,
        plot=plot(rows, f"{element_id}-plot") if rows else "",
    )


def _nice_step(span: float) -> float:
    for step in (0.5, 1, 2, 5, 10, 20, 25, 50, 100):
        if span / step <= 4:
            return step
    return 200


def _number(value: float) -> str:
    """A coordinate, with a decimal point whatever the language."""
    return f"{value:.1f}".removesuffix(".0")


def _tick_label(value: float) -> str:
    """A guide line's value in the reader's way of writing it: "−2", "0,5"."""
    if value == int(value):
        return f"−{-int(value)}" if value < 0 else str(int(value))
    return tenths(value)


def plot(rows: Sequence[ReviewRow], plot_id: str = "review-plot") -> str:
    """The expected result through the match, as SVG: one point per decision in order, the chosen
    action's value and (lighter) the best one's, a faint line where a round begins, a dot sized and
    coloured by its mark on each marked decision. Titled and described for a screen reader, which also
    has the rows as a table (``gameplay/_review.html``)."""
    values = [each.expected for each in rows] + [each.best_value for each in rows]
    step = _nice_step((max(values) - min(values)) or 1)
    low = (min(values) // step) * step
    high = -(-max(values) // step) * step
    if high == low:
        high = low + step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_of(index: int) -> float:
        return LEFT + (inner_w * index / (len(rows) - 1) if len(rows) > 1 else inner_w / 2)

    def y_of(value: float) -> float:
        return TOP + inner_h * (high - value) / (high - low)

    def line(values: Sequence[float]) -> str:
        return " ".join(f"{_number(x_of(i))},{_number(y_of(v))}" for i, v in enumerate(values))

    title = _("The expected result through the match")
    desc = _(
        "Your decisions in order (%(count)d): the expected result of each move you made and, lighter,"
        " of the best one; marked: %(marked)d."
    ) % {"count": len(rows), "marked": sum(1 for each in rows if each.label)}
    plot_id = escape(plot_id)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="review-plot" viewBox="0 0 {WIDTH} {HEIGHT}"'
        ' role="img" focusable="false"'
        f' aria-labelledby="{plot_id}-title {plot_id}-desc" data-testid="review-plot">',
        f'<title id="{plot_id}-title">{escape(title)}</title>',
        f'<desc id="{plot_id}-desc">{escape(desc)}</desc>',
    ]
    tick = low
    while tick <= high + step / 1000:
        y = _number(y_of(tick))
        parts.append(f'<line class="plot-guide" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}"/>')
        parts.append(
            f'<text class="plot-label" x="{LEFT - 4}" y="{y}" text-anchor="end"'
            f' dominant-baseline="middle">{escape(_tick_label(tick))}</text>'
        )
        tick += step
    for index in range(1, len(rows)):
        if rows[index].round != rows[index - 1].round:
            x = _number((x_of(index - 1) + x_of(index)) / 2)
            parts.append(
                f'<line class="review-plot-round" x1="{x}" x2="{x}" y1="{TOP}" y2="{HEIGHT - BOTTOM}"/>'
            )
    best = line([each.best_value for each in rows])
    chosen = line([each.expected for each in rows])
    parts.append(f'<polyline class="review-plot-best" fill="none" points="{best}"/>')
    parts.append(f'<polyline class="review-plot-expected" fill="none" points="{chosen}"/>')
    for index, each in enumerate(rows):
        if each.label:
            parts.append(
                f'<circle class="review-dot review-dot-{each.label}" cx="{_number(x_of(index))}"'
                f' cy="{_number(y_of(each.expected))}" r="{_number(DOT_RADIUS[each.label])}"/>'
            )
    parts.append("</svg>")
    return "".join(parts)
