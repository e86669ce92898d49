"""What the chat shows, and to whom: a table's lines for one reader (in the reader's language, without
the people the reader ignores or has a block with), a match's chat afterwards, and the moderators'
view of a report."""

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Count, F, Q
from django.utils import timezone
from django.utils.translation import gettext

from accounts import selectors as account_selectors
from gameplay.models import Match, Participant
from social import selectors as social_selectors

from .models import ChatMessage, Ignore, ModerationAction, Report, Room, Suspension, TableChat
from .phrases import phrase_text

SHOWN_LINES = 50
"""How many of a room's latest lines a page opens with."""
AROUND = 20
"""How many lines a moderator reads around a reported one."""


@dataclass(frozen=True)
class Line:
    """One chat message as every reader of one language sees it (a phrase in that language, a removed
    message as removed); ``author_id`` decides who is shown it."""

    id: int
    room: str
    """A plain string, never the ``Room`` member: the news must read the same after a trip through
    Redis, or the process that sent it would not know its own echo and show the line twice."""
    author_id: int
    author: str
    phrase: str
    shown: str
    removed: bool
    move_index: int
    at: datetime

    @property
    def text(self) -> str:
        if self.removed:
            return gettext("Removed by a moderator.")
        return phrase_text(self.phrase) if self.phrase else self.shown

    def as_news(self) -> dict:
        """The line as a group message carries it (plain values, across Redis)."""
        return {
            "id": self.id,
            "room": self.room,
            "author_id": self.author_id,
            "author": self.author,
            "phrase": self.phrase,
            "shown": self.shown,
            "removed": self.removed,
            "move_index": self.move_index,
            "at": self.at.isoformat(),
        }

    @classmethod
    def from_news(cls, news: dict) -> "Line":
        return cls(**{**news, "at": datetime.fromisoformat(news["at"])})

    @classmethod
    def of(cls, message: ChatMessage) -> "Line":
        return cls(
            id=message.pk,
            room=str(message.room),
            author_id=message.author_id,
            author=message.author.username,
            phrase=message.phrase,
            shown=message.shown,
            removed=message.removed_at is not None,
            move_index=message.move_index,
            at=message.created_at,
        )


def hidden_authors(*, user) -> frozenset[int]:
    """The people whose lines ``user`` is not shown: those they ignore, and those a block stands
    between (either way)."""
    if not user.is_authenticated:
        return frozenset()
    ignored = set(Ignore.objects.filter(person=user).values_list("ignored_id", flat=True))
    return frozenset(ignored | social_selectors.blocked_either_way(user_id=user.pk))


def ignored_people(*, user) -> list[Ignore]:
    if not user.is_authenticated:
        return []
    return list(Ignore.objects.filter(person=user).select_related("ignored").order_by("ignored__username"))


def _lines(messages) -> list[Line]:
    return [Line.of(message) for message in messages.select_related("author")]


def room_lines(*, table_id: int, room: str, hidden: frozenset[int], limit: int = SHOWN_LINES) -> list[Line]:
    """A room's latest lines at a table, oldest first, without those of ``hidden`` authors."""
    messages = ChatMessage.objects.filter(table_id=table_id, room=room).exclude(author_id__in=hidden)
    return list(reversed(_lines(messages.order_by("-pk")[:limit])))


def may_read_players(*, table, user) -> bool:
    """Whether ``user`` reads the players' chat of a live table: they sit there."""
    return user.is_authenticated and any(seat.user_id == user.pk for seat in table.seats.all())


def phrases_only(*, table_id: int) -> bool:
    return TableChat.objects.filter(table_id=table_id, phrases_only=True).exists()


def finished_matches(*, user) -> int:
    """How many matches ``user`` has played to their end with at least one other person (not practice,
    not bots alone: a quick match against bots costs a script nothing)."""
    played = Participant.objects.filter(user=user).values("match_id")
    return (
        Match.objects.filter(pk__in=played, status=Match.Status.FINISHED, practice=False)
        .annotate(people=Count("participants__user", distinct=True))
        .filter(people__gte=2)
        .count()
    )


def played_enough(*, user) -> bool:
    return finished_matches(user=user) >= settings.CHAT_FREE_TEXT_MATCHES


def may_type(*, user) -> bool:
    """Whether ``user``'s account may write free text (spam: an account sends quick phrases only until
    its email is confirmed and it has finished ``CHAT_FREE_TEXT_MATCHES`` matches with people)."""
    return user.is_authenticated and account_selectors.email_confirmed(user=user) and played_enough(user=user)


def suspension_of(*, user_id: int, now: datetime | None = None) -> Suspension | None:
    """The suspension in force for this person, the longest first (for good before any end)."""
    now = now or timezone.now()
    live = Suspension.objects.filter(user_id=user_id, lifted_at__isnull=True).filter(
        Q(until__isnull=True) | Q(until__gt=now)
    )
    return live.order_by(F("until").desc(nulls_first=True)).first()


def warnings_unseen(*, user) -> list[ModerationAction]:
    if not user.is_authenticated:
        return []
    return list(
        ModerationAction.objects.filter(
            subject=user, kind=ModerationAction.Kind.WARN, seen_at__isnull=True
        ).order_by("pk")
    )


def may_read_match_chat(*, match: Match, user) -> bool:
    """Whether ``user`` reads ``match``'s whole chat afterwards, the players' room too: the people who
    played it, and superusers. A moderator reads its spectators' room (``match_lines``), and the
    players' only as the lines around a reported one, in the admin."""
    if not user.is_authenticated:
        return False
    return user.is_superuser or Participant.objects.filter(match=match, user=user).exists()


def match_lines(*, match: Match, user) -> list[Line] | None:
    """The lines said during ``match`` (oldest first) for one of its readers: both rooms for the people
    who played it, the spectators' for a moderator; None for anyone else (who is not told there was a
    chat at all)."""
    if may_read_match_chat(match=match, user=user):
        lines = ChatMessage.objects.filter(match=match)
    elif user.is_authenticated and user.has_perm("chat.view_chatmessage"):
        lines = ChatMessage.objects.filter(match=match, room=Room.WATCHERS)
    else:
        return None
    hidden = hidden_authors(user=user)
    return _lines(lines.exclude(author_id__in=hidden).order_by("pk"))


def part_of_case(*, user, subject_id: int | None = None, message: ChatMessage | None = None) -> bool:
    """Whether ``user`` is part of a moderation case: about themselves, about their own line, or about
    a line they reported (one decision answers every open report of a line, theirs too)."""
    if subject_id == user.pk:
        return True
    if message is None:
        return False
    return (
        message.author_id == user.pk or Report.objects.filter(message=message, reporter_id=user.pk).exists()
    )


def around(*, report: Report, count: int = AROUND) -> list[Line]:
    """The reported message and the ``count`` said around it in its room (half before, half after)."""
    message = report.message
    same_room = ChatMessage.objects.filter(table_id=message.table_id, room=message.room)
    before = list(same_room.filter(pk__lt=message.pk).order_by("-pk")[: count // 2])
    after = list(same_room.filter(pk__gt=message.pk).order_by("pk")[: count - len(before)])
    return [Line.of(line) for line in [*reversed(before), message, *after]]


@dataclass(frozen=True)
class Drawer:
    """Everything a table page's chat shows its reader."""

    table_id: int
    seated: bool
    players: list[Line]
    watchers: list[Line]
    phrases_only: bool
    may_type: bool
    email_confirmed: bool
    is_host: bool
    suspension: Suspension | None
    warnings: list[ModerationAction]
    ignored: list[Ignore]
    logged_in: bool


def drawer(
    *, table, user, hidden: frozenset[int] | None = None, logs: bool = True, composer: bool = True
) -> Drawer:
    """The chat of ``table`` (read with its seats) as ``user`` sees it: its ``logs`` (the lines) and its
    ``composer`` (what the message box offers); what is not asked for is left unread."""
    if logs and hidden is None:
        hidden = hidden_authors(user=user)
    seated = may_read_players(table=table, user=user)
    logged_in = user.is_authenticated
    mine = composer and logged_in
    email_confirmed = mine and account_selectors.email_confirmed(user=user)
    return Drawer(
        table_id=table.pk,
        seated=seated,
        players=room_lines(table_id=table.pk, room=Room.PLAYERS, hidden=hidden) if logs and seated else [],
        watchers=room_lines(table_id=table.pk, room=Room.WATCHERS, hidden=hidden) if logs else [],
        phrases_only=composer and phrases_only(table_id=table.pk),
        may_type=email_confirmed and played_enough(user=user),
        email_confirmed=email_confirmed,
        is_host=logged_in and table.host_id == user.pk,
        suspension=suspension_of(user_id=user.pk) if mine else None,
        warnings=warnings_unseen(user=user) if mine else [],
        ignored=ignored_people(user=user) if mine else [],
        logged_in=logged_in,
    )


@dataclass(frozen=True)
class Traces:
    """Where a person shows in the chat's rows, which Django's admin log may name: the rows' ids by
    model, and the text of the person's lines."""

    rows: dict[type, list[int]]
    texts: list[str]


def traces_of(*, user_id: int) -> Traces:
    """The chat rows about ``user_id`` (their lines, the reports about those lines and those they
    filed, their suspensions, the moderators' actions about them or their lines) and the text of their
    lines: read before ``services.person_forget`` deletes them, so the admin log can forget them too."""
    said = ChatMessage.objects.filter(author_id=user_id)
    about = Q(subject_id=user_id) | Q(message__author_id=user_id)
    rows = {
        ChatMessage: said.values_list("pk", flat=True),
        Report: Report.objects.filter(Q(message__author_id=user_id) | Q(reporter_id=user_id)).values_list(
            "pk", flat=True
        ),
        Suspension: Suspension.objects.filter(user_id=user_id).values_list("pk", flat=True),
        ModerationAction: ModerationAction.objects.filter(about).values_list("pk", flat=True),
    }
    texts = list(said.exclude(text="").values_list("text", flat=True))
    return Traces({model: list(ids) for model, ids in rows.items()}, texts)
