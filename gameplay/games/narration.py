"""Public events as sentences for the table's log, in the reader's language."""

from collections.abc import Sequence

from gameplay.engine.core import Event

from .words import card_name as card_label
from .words import gettext as _
from .words import ngettext
from .words import suit_name as suit_label


def describe(event: Event, names: Sequence[str], *, stood_in: int | None = None) -> str:
    """One line for the log, or "" for events the log does not show. What a bot did while standing
    in for a seat (``stood_in``) is told as the bot's, never under the player's own name."""
    kind = event["type"]
    seat = event.get("seat")
    who = names[seat] if seat is not None else ""
    if seat is not None and seat == stood_in:
        who = _("The bot for %(name)s") % {"name": who}
    if kind == "played":
        if event.get("suit"):
            return _("%(name)s played the %(card)s and named %(suit)s.") % {
                "name": who,
                "card": card_label(event["card"]),
                "suit": suit_label(event["suit"]),
            }
        if event.get("cuts"):  # the trick's first card, or one that cuts it: either way it holds the trick
            return _("%(name)s played the %(card)s and holds the trick.") % {
                "name": who,
                "card": card_label(event["card"]),
            }
        return _("%(name)s played the %(card)s.") % {"name": who, "card": card_label(event["card"])}
    if kind == "drew":
        return ngettext("%(name)s drew a card.", "%(name)s drew %(count)d cards.", event["count"]) % {
            "name": who,
            "count": event["count"],
        }
    if kind == "took" and "count" in event:
        return ngettext("%(name)s took %(count)d card.", "%(name)s took %(count)d cards.", event["count"]) % {
            "name": who,
            "count": event["count"],
        }
    if kind == "took":
        return ngettext(
            "%(name)s took the trick and %(points)d point.",
            "%(name)s took the trick and %(points)d points.",
            event["points"],
        ) % {"name": who, "points": event["points"]}
    if kind == "written_off":
        return ngettext(
            "%(count)d owed card could not be drawn and was written off.",
            "%(count)d owed cards could not be drawn and were written off.",
            event["count"],
        ) % {"count": event["count"]}
    if kind == "sat_out":
        return _("%(name)s sat out a turn.") % {"name": who}
    if kind == "passed":
        return _("%(name)s could do nothing and passed.") % {"name": who}
    if kind == "reshuffled":
        return _("The pile was shuffled into a new stock.")
    if kind == "continued":
        return _("%(name)s fights on for the trick.") % {"name": who}
    if kind == "ended":
        return _("%(name)s let the trick go.") % {"name": who}
    if kind == "round_over":
        if event["out"] is None:
            return _("Round %(round)d is over: nobody went out.") % {"round": event["round"]}
        return _("%(name)s went out: round %(round)d is over.") % {
            "name": names[event["out"]],
            "round": event["round"],
        }
    if kind == "deal_over":
        return _("Deal %(deal)d is over.") % {"deal": event["deal"]}
    if kind == "match_over":
        return _("The match is over.")
    return ""
