"""Every write of the chat: what is said at a table, what readers report and ignore, a host's
"phrases only", and every moderator's action (each recorded with who and why). News goes out after
commit (``chat.events``)."""

import re
import unicodedata
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext, gettext_noop

from accounts import limits, moderators
from accounts import selectors as account_selectors
from accounts import services as account_services
from gameplay.models import Match
from tables import selectors as table_selectors
from tables.models import Table

from . import events, selectors, signals, wording
from .models import BannedWord, ChatMessage, Ignore, ModerationAction, Report, Room, Suspension, TableChat
from .phrases import PHRASES

MAX_TEXT = 200
UNSHOWN = re.compile(r"[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
"""Control characters, zero-width marks and direction overrides: nothing a reader could see, and the
direction overrides can make a text read as another."""
SPACES = re.compile(r"\s+")


class ChatRefused(Exception):
    """Why something was not said or done, in the active language when ``explain``ed; ``until`` (a
    suspension's end) is written in the reader's language and the site's time."""

    def __init__(self, template: str, params: dict | None = None, *, until: datetime | None = None) -> None:
        self.template = template
        self.params = params or {}
        self.until = until
        super().__init__(template)

    def explain(self) -> str:
        params = dict(self.params)
        if self.until is not None:
            params["until"] = formats.date_format(timezone.localtime(self.until), "DATETIME_FORMAT")
        return gettext(self.template) % params


class ModerationRefused(Exception):
    """A moderator's action the rules refuse; the text is for the moderator."""


def clean_text(text: str) -> str:
    """Free text as it is kept: composed (so "ș" is one letter however it was typed), without
    characters nobody sees, spaces run together, trimmed."""
    composed = unicodedata.normalize("NFC", text)
    # Line breaks and tabs are spaces first (not unseen characters dropped, which would run words together).
    return SPACES.sub(" ", UNSHOWN.sub("", SPACES.sub(" ", composed))).strip()


def _masker() -> wording.Masker:
    return wording.Masker(BannedWord.objects.values_list("word", flat=True))


def _refuse_if_suspended(user_id: int) -> None:
    suspension = selectors.suspension_of(user_id=user_id)
    if suspension is None:
        return
    if suspension.until is None:
        raise ChatRefused(
            gettext_noop("A moderator has suspended you from chat for good: %(reason)s"),
            {"reason": suspension.reason},
        )
    raise ChatRefused(
        gettext_noop("A moderator has suspended you from chat until %(until)s: %(reason)s"),
        {"reason": suspension.reason},
        until=suspension.until,
    )


def _spend_message(user_id: int) -> None:
    burst = settings.CHAT_MESSAGES_PER_10_SECONDS
    if limits.spend(f"chat:{user_id}", rate=burst / 10, burst=burst):
        raise ChatRefused(gettext_noop("You are sending messages too quickly: wait a few seconds."))


TABLE_KEY_SHARE = f"SELECT 1 FROM {Table._meta.db_table} WHERE id = %s FOR KEY SHARE"


def _hold_the_table_first(table_id: int) -> None:
    """Hold the table's row as a line's foreign key to it does (``FOR KEY SHARE``), now: the key
    checks at commit would take the match's row before the table's, the reverse of the site's order
    (a move locks the table's row, then the match's), and a line said while a move was between the two
    would deadlock with it. SQLite (embedded) has no row locks: a write holds the whole database."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(TABLE_KEY_SHARE, [table_id])


def _refuse_a_repeat(*, table_id: int, user_id: int, phrase: str, folded: str) -> None:
    since = timezone.now() - timedelta(seconds=settings.CHAT_REPEAT_SECONDS)
    last = (
        ChatMessage.objects.filter(table_id=table_id, author_id=user_id, created_at__gte=since)
        .order_by("-pk")
        .values_list("phrase", "text")
        .first()
    )
    if last is not None and last[0] == phrase and wording.fold(last[1]) == folded:
        raise ChatRefused(gettext_noop("You have just said that."))


def chat_say(*, table_id: int, user, phrase: str = "", text: str = "") -> ChatMessage:
    """Say a quick phrase (its key) or free text at a table: in the players' room for someone seated
    there, else in the spectators'. Refused with the reason for anyone logged out, suspended, too
    quick, repeating themselves, typing at a "phrases only" table or before their account may type,
    or sending more than ``MAX_TEXT`` characters."""
    if not user.is_authenticated:
        raise ChatRefused(gettext_noop("Log in to chat."))
    if bool(phrase) == bool(text):
        raise ChatRefused(gettext_noop("Choose a quick phrase or type a message."))
    if phrase and phrase not in PHRASES:
        raise ChatRefused(gettext_noop("That is not one of the quick phrases."))
    text = clean_text(text)
    if not phrase and not text:
        raise ChatRefused(gettext_noop("Type a message first."))
    if len(text) > MAX_TEXT:
        raise ChatRefused(gettext_noop("A message holds at most %(count)d characters."), {"count": MAX_TEXT})
    _spend_message(user.pk)
    table = table_selectors.table_detail(table_id=table_id)
    if table is None or not table_selectors.may_watch(table=table, user=user):
        raise ChatRefused(gettext_noop("This table's chat is not open to you."))
    _refuse_if_suspended(user.pk)
    if text and selectors.phrases_only(table_id=table_id):
        raise ChatRefused(gettext_noop("At this table the host allows quick phrases only."))
    if text and not account_selectors.email_confirmed(user=user):
        raise ChatRefused(
            gettext_noop(
                "You can type messages once your email address is confirmed: open the link we mailed "
                "you, or ask for a new one on your profile page. Until then, use the quick phrases."
            )
        )
    if text and not selectors.may_type(user=user):
        raise ChatRefused(
            gettext_noop(
                "You can type messages once you have finished %(count)d matches with other people; "
                "until then, use the quick phrases."
            ),
            {"count": settings.CHAT_FREE_TEXT_MATCHES},
        )
    _refuse_a_repeat(table_id=table_id, user_id=user.pk, phrase=phrase, folded=wording.fold(text))
    room = Room.PLAYERS if selectors.may_read_players(table=table, user=user) else Room.WATCHERS
    match = Match.objects.filter(table_id=table_id).order_by("-pk").only("pk", "moves_made").first()
    with transaction.atomic():
        _hold_the_table_first(table_id)
        message = ChatMessage.objects.create(
            table_id=table_id,
            match=match,
            move_index=match.moves_made if match else 0,
            room=room,
            author=user,
            phrase=phrase,
            text=text,
            shown=_masker().mask(text) if text else "",
        )
        events.said(table_id, selectors.Line.of(message).as_news())
    return message


def _readable_message(*, user, message_id: int) -> ChatMessage:
    """A message ``user`` may read (so may report, or ignore the author of)."""
    message = ChatMessage.objects.select_related("table", "match", "author").filter(pk=message_id).first()
    if message is None or not user.is_authenticated:
        raise ChatRefused(gettext_noop("That message is no longer there."))
    if message.room == Room.PLAYERS:
        table = table_selectors.table_detail(table_id=message.table_id)
        seated = table is not None and selectors.may_read_players(table=table, user=user)
        played = message.match is not None and selectors.may_read_match_chat(match=message.match, user=user)
        if not (seated or played):
            raise ChatRefused(gettext_noop("That message is no longer there."))
    return message


def _spend_social(user, address: str | None) -> None:
    """Spend a report or an ignore, before any database work: from the person's budget and (from a
    browser, ``address``) their address's."""
    if not user.is_authenticated:
        raise ChatRefused(gettext_noop("That message is no longer there."))
    if shortfall := limits.spend_person_and_address(
        "chat-reports",
        user.pk,
        address,
        count=settings.CHAT_REPORTS_PER_HOUR,
        address_count=settings.CHAT_REPORTS_PER_ADDRESS_PER_HOUR,
        seconds=3600,
        refusal=gettext_noop("You have reported or ignored too many times: try again later."),
        address_refusal=gettext_noop(
            "Too many reports and ignores have come from your network: try again later."
        ),
    ):
        raise ChatRefused(shortfall.said)


def chat_report(*, user, message_id: int, reason: str, address: str | None = None) -> Report:
    """Report a message to the moderators (once per message and reader); ``address``: the browser's
    (None when not from one), whose budget it spends too."""
    if reason not in Report.Reason.values:
        raise ChatRefused(gettext_noop("Choose why you report this message."))
    _spend_social(user, address)
    message = _readable_message(user=user, message_id=message_id)
    if message.author_id == user.pk:
        raise ChatRefused(gettext_noop("You cannot report your own message."))
    try:
        with transaction.atomic():
            return Report.objects.create(message=message, reporter=user, reason=reason)
    except IntegrityError:
        return Report.objects.get(message=message, reporter=user)


def chat_ignore(*, user, message_id: int, address: str | None = None) -> Ignore:
    """Stop seeing the author of a message, anywhere; every page of ``user`` shows the chat anew.
    Spends as a report does."""
    _spend_social(user, address)
    message = _readable_message(user=user, message_id=message_id)
    if message.author_id == user.pk:
        raise ChatRefused(gettext_noop("You cannot ignore yourself."))
    with transaction.atomic():
        ignore, _created = Ignore.objects.get_or_create(person=user, ignored_id=message.author_id)
        events.standing_changed(user.pk)
    return ignore


def chat_unignore(*, user, ignored_id: int) -> bool:
    """See a person's messages again; True when they were ignored."""
    if not user.is_authenticated:
        return False
    with transaction.atomic():
        deleted, _rows = Ignore.objects.filter(person=user, ignored_id=ignored_id).delete()
        if deleted:
            events.standing_changed(user.pk)
    return bool(deleted)


def chat_set_phrases_only(*, table_id: int, user, on: bool) -> None:
    """The host makes the table's chat "quick phrases only", or lets free text in again: a few times a
    minute (``CHAT_PHRASES_ONLY_TOGGLES_PER_MINUTE``, spent first). The table's pages hear of a burst
    of switches once (``events.settings_changed``)."""
    if not user.is_authenticated:
        raise ChatRefused(gettext_noop("Only the table's host can change this."))
    per_minute = settings.CHAT_PHRASES_ONLY_TOGGLES_PER_MINUTE
    if limits.spend(f"chat-phrases-only:{user.pk}", rate=per_minute / 60, burst=per_minute):
        raise ChatRefused(gettext_noop("You have switched this too often: wait a minute."))
    table = table_selectors.table_detail(table_id=table_id)
    if table is None or table.host_id != user.pk:
        raise ChatRefused(gettext_noop("Only the table's host can change this."))
    with transaction.atomic():
        TableChat.objects.update_or_create(table_id=table_id, defaults={"phrases_only": on})
        events.settings_changed(table_id)


def chat_settings_announce(*, table_id: int) -> bool:
    """The worker's, ``CHAT_SETTINGS_ANNOUNCE_SECONDS`` after the first of a burst of a host's
    switches: the table's pages hear of its chat settings once, as they now stand, and only when they
    differ from what was last announced (switched off and on again, nothing is sent). True when sent."""
    events.settings_due_taken(table_id)  # a switch from now on is announced by a task of its own
    return events.settings_announced(table_id, phrases_only=selectors.phrases_only(table_id=table_id))


def warnings_seen(*, user) -> int:
    """The person read their warnings: they are not shown again, on any page of theirs."""
    if not user.is_authenticated:
        return 0
    with transaction.atomic():
        seen = ModerationAction.objects.filter(
            subject=user, kind=ModerationAction.Kind.WARN, seen_at__isnull=True
        ).update(seen_at=timezone.now())
        if seen:
            events.standing_changed(user.pk)
    return seen


# Moderation. Each action needs the ``chat.moderate_chat`` permission, a reason, and leaves a record.

SUSPENSIONS = {"1h": timedelta(hours=1), "24h": timedelta(hours=24), "forever": None}
"""How long a moderator may suspend someone from chat: an hour, a day, or for good."""


def _moderator(by) -> None:
    if not by.has_perm("chat.moderate_chat"):
        raise ModerationRefused(gettext("Only a moderator can do this."))


def _refuse_own_case(by, *, subject_id: int | None = None, message: ChatMessage | None = None) -> None:
    """Nobody acts on a case they are part of (``selectors.part_of_case``), superusers included."""
    if selectors.part_of_case(user=by, subject_id=subject_id, message=message):
        raise ModerationRefused(moderators.own_case_refusal())


def _reason(reason: str) -> str:
    reason = clean_text(reason)
    if not reason:
        raise ModerationRefused(gettext("Say why: the person is told, and the record keeps it."))
    return reason[:200]


def _record(
    *, by, kind: str, reason: str, subject_id=None, message=None, report=None, detail=""
) -> ModerationAction:
    if report is not None and report.handled_at is None:
        # The report, and every other open report of the same message: one action answers them all.
        Report.objects.filter(message_id=report.message_id, handled_at__isnull=True).update(
            handled_at=timezone.now(), handled_by=by
        )
    return ModerationAction.objects.create(
        moderator=by,
        kind=kind,
        reason=reason,
        subject_id=subject_id,
        message=message,
        report=report,
        detail=detail,
    )


@transaction.atomic
def chat_warn(*, subject_id: int, by, reason: str, report: Report | None = None) -> ModerationAction:
    """Warn a person: their chat shows the warning, in the moderator's words, until they read it."""
    _moderator(by)
    _refuse_own_case(by, subject_id=subject_id, message=report.message if report else None)
    action = _record(
        by=by,
        kind=ModerationAction.Kind.WARN,
        reason=_reason(reason),
        subject_id=subject_id,
        message=report.message if report else None,
        report=report,
    )
    events.standing_changed(subject_id)
    transaction.on_commit(
        lambda: signals.person_warned.send(ModerationAction, user_id=subject_id, action_id=action.pk)
    )
    return action


@transaction.atomic
def chat_suspend(
    *, subject_id: int, by, reason: str, length: str, report: Report | None = None
) -> Suspension:
    """Suspend a person from chat for one of ``SUSPENSIONS``: what they send is refused with the reason
    and until when; they still read the chat."""
    _moderator(by)
    if length not in SUSPENSIONS:
        raise ModerationRefused(gettext("Choose how long: an hour, a day or for good."))
    _refuse_own_case(by, subject_id=subject_id, message=report.message if report else None)
    reason = _reason(reason)
    span = SUSPENSIONS[length]
    suspension = Suspension.objects.create(
        user_id=subject_id, until=timezone.now() + span if span else None, reason=reason
    )
    _record(
        by=by,
        kind=ModerationAction.Kind.SUSPEND,
        reason=reason,
        subject_id=subject_id,
        message=report.message if report else None,
        report=report,
        detail=length,
    )
    events.standing_changed(subject_id)
    return suspension


@transaction.atomic
def chat_lift(*, suspension: Suspension, by, reason: str) -> bool:
    """End a suspension early; True when it was still in force. Never one's own."""
    _moderator(by)
    _refuse_own_case(by, subject_id=suspension.user_id)
    reason = _reason(reason)
    lifted = Suspension.objects.filter(pk=suspension.pk, lifted_at__isnull=True).update(
        lifted_at=timezone.now()
    )
    if lifted:
        _record(by=by, kind=ModerationAction.Kind.LIFT, reason=reason, subject_id=suspension.user_id)
        events.standing_changed(suspension.user_id)
    return bool(lifted)


@transaction.atomic
def chat_remove(*, message: ChatMessage, by, reason: str, report: Report | None = None) -> bool:
    """Remove a message: every reader then sees "Removed by a moderator" in its place (the record
    keeps the words). True when it was still shown."""
    _moderator(by)
    _refuse_own_case(by, message=message)
    reason = _reason(reason)
    removed = ChatMessage.objects.filter(pk=message.pk, removed_at__isnull=True).update(
        removed_at=timezone.now(), removed_by=by
    )
    _record(
        by=by,
        kind=ModerationAction.Kind.REMOVE,
        reason=reason,
        subject_id=message.author_id,
        message=message,
        report=report,
    )
    if removed:
        events.removed(message.table_id, message.pk, message.room)
    return bool(removed)


def chat_ban(*, subject, by, reason: str, report: Report | None = None) -> bool:
    """Ban the person's account (``accounts.services.user_ban``'s rules and reactions), recorded here."""
    _moderator(by)
    _refuse_own_case(by, subject_id=subject.pk, message=report.message if report else None)
    reason = _reason(reason)
    try:
        banned = account_services.user_ban(user=subject, by=by)
    except account_services.BanRefused as refusal:
        raise ModerationRefused(str(refusal)) from refusal
    with transaction.atomic():
        _record(
            by=by,
            kind=ModerationAction.Kind.BAN,
            reason=reason,
            subject_id=subject.pk,
            message=report.message if report else None,
            report=report,
        )
    return banned


@transaction.atomic
def report_dismiss(*, report: Report, by, reason: str) -> ModerationAction:
    """Close a report with nothing done to anyone."""
    _moderator(by)
    _refuse_own_case(by, message=report.message)
    return _record(
        by=by,
        kind=ModerationAction.Kind.DISMISS,
        reason=_reason(reason),
        subject_id=report.message.author_id,
        message=report.message,
        report=report,
    )


@transaction.atomic
def word_add(*, word: str, by) -> BannedWord:
    """Put a word on the list (folded: one entry masks its every spelling); it masks from the next
    message on."""
    _moderator(by)
    entry = wording.list_entry(word)
    if len(entry.rstrip("*")) < 2:
        raise ModerationRefused(gettext("A word of two letters at least."))
    banned, created = BannedWord.objects.get_or_create(word=entry)
    if created:
        _record(by=by, kind=ModerationAction.Kind.WORD_ADD, reason=gettext("word list"), detail=entry)
    return banned


@transaction.atomic
def word_remove(*, banned: BannedWord, by) -> None:
    _moderator(by)
    word = banned.word
    if BannedWord.objects.filter(pk=banned.pk).delete()[0]:
        _record(by=by, kind=ModerationAction.Kind.WORD_REMOVE, reason=gettext("word list"), detail=word)


def person_forget(*, user_id: int) -> int:
    """A closed account's chat goes, inside the caller's transaction: every message it wrote (with the
    reports about them), whom it ignored and who ignored it, its own reports and its suspensions. The
    moderators' record of what they decided stays, naming "a deleted player". Pages open at a table
    still going lose the lines at once. How many messages went."""
    said = ChatMessage.objects.filter(author_id=user_id)
    live = list(said.filter(table__status__in=Table.NOT_OVER).values_list("table_id", "pk", "room"))
    for table_id, message_id, room in live:
        events.removed(table_id, message_id, room, erased=True)
    Ignore.objects.filter(Q(person_id=user_id) | Q(ignored_id=user_id)).delete()
    Report.objects.filter(reporter_id=user_id).delete()
    Suspension.objects.filter(user_id=user_id).delete()
    return said.delete()[1].get(ChatMessage._meta.label, 0)
