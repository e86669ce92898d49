"""What a notice says, in the active language: its title and one line, from what the outbox kept of
it (ids, numbers and names, never a rendered text: the person's language is chosen when it is sent)."""

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tables.models import Game

from .models import Delivery, Kind

MISSED = "missed"
FINISHED = "finished"
"""``params["event"]`` of a match's news at its own pace: a move a bot played for the person, its end."""


@dataclass(frozen=True)
class Said:
    title: str
    body: str


def _game(params: dict) -> str:
    game = params.get("game", "")
    return str(Game(game).label) if game in Game.values else game


def said(delivery: Delivery) -> Said:
    """The notice's title and line, for a push or one entry of an email."""
    params = delivery.params
    match delivery.kind:
        case Kind.YOUR_TURN:
            return Said(_("Your turn"), _("It's your turn in a match of %(game)s.") % {"game": _game(params)})
        case Kind.PACE_RESULT if params.get("event") == MISSED and params.get("for_good"):
            return Said(
                _("A bot took your seat"),
                _("Time ran out again in your match of %(game)s: a bot plays your seat to the end.")
                % {"game": _game(params)},
            )
        case Kind.PACE_RESULT if params.get("event") == MISSED:
            return Said(
                _("Time ran out"),
                _("Time ran out in your match of %(game)s: a bot played your move.")
                % {"game": _game(params)},
            )
        case Kind.PACE_RESULT:
            return Said(
                _("Match over"),
                _("Your match of %(game)s at your own pace is over: see how it ended.")
                % {"game": _game(params)},
            )
        case Kind.INVITATION:
            return Said(
                _("An invitation"), _("%(name)s invites you to a table.") % {"name": params.get("from", "")}
            )
        case Kind.FRIEND_REQUEST:
            return Said(
                _("A friend request"),
                _("%(name)s would like to be your friend.") % {"name": params.get("from", "")},
            )
        case Kind.TOURNAMENT:
            return Said(
                _("A tournament is starting"), _("%(name)s is starting.") % {"name": params.get("name", "")}
            )
        case _:
            return Said(
                _("A moderator's warning"),
                _("A moderator warned you: “%(reason)s”") % {"reason": params.get("reason", "")},
            )


def subject(kind: str, entries: list[Said]) -> str:
    """An email's subject: its one entry's title, or how many a digest holds."""
    if len(entries) == 1:
        return entries[0].title
    count = len(entries)
    match kind:
        case Kind.YOUR_TURN:
            return ngettext(
                "It's your turn in %(count)d match", "It's your turn in %(count)d matches", count
            ) % {"count": count}
        case Kind.PACE_RESULT:
            return ngettext(
                "News of %(count)d match at your own pace",
                "News of %(count)d matches at your own pace",
                count,
            ) % {"count": count}
        case Kind.INVITATION:
            return ngettext("%(count)d invitation", "%(count)d invitations", count) % {"count": count}
        case Kind.FRIEND_REQUEST:
            return ngettext("%(count)d friend request", "%(count)d friend requests", count) % {"count": count}
        case Kind.TOURNAMENT:
            return ngettext("%(count)d tournament starting", "%(count)d tournaments starting", count) % {
                "count": count
            }
        case _:
            return ngettext("%(count)d moderator's warning", "%(count)d moderator's warnings", count) % {
                "count": count
            }
