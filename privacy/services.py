"""A person's own data: preparing their download, closing their account, and deleting on schedule
what the privacy page says is deleted. The one way each is done, from the account page, the admin and
the worker alike."""

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from celery import current_app
from django.apps import apps
from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import limits
from accounts import services as account_services
from accounts.models import User, open_bot_accounts
from api import services as api_services
from gameplay import services as gameplay_services
from notifications import services as notification_services
from opendata import services as opendata_services
from reviews import services as review_services
from social import services as social_services
from tournaments import services as tournament_services

from . import export
from .models import DataExport, ErasedAccount

if TYPE_CHECKING:
    from chat.selectors import Traces

EXPORT_BUILD = "privacy.tasks.export_build"
"""Queued by name, so the services need not import the task layer (as gameplay's scheduling does)."""
EXPORT_STALE_AFTER = timedelta(minutes=15)
"""A download still being prepared after this long was lost with its worker: it counts as failed."""


class PrivacyError(Exception):
    """A request refused; the text is for the person."""


# --- Downloading one's data ----------------------------------------------------------------------------


def _fail_stale(user: User) -> None:
    DataExport.objects.filter(
        user=user, status=DataExport.Status.PENDING, requested_at__lt=timezone.now() - EXPORT_STALE_AFTER
    ).update(status=DataExport.Status.FAILED)


def _spend_export(user: User, address: str | None) -> None:
    """Spend a request for a download, before any database work: from the person's budget and (from
    a browser, ``address``) their address's."""
    own = limits.Budget.per(f"data-export:{user.pk}", settings.DATA_EXPORTS_PER_DAY, 86400)
    budgets = [own]
    if address is not None:
        per_address = settings.DATA_EXPORTS_PER_ADDRESS_PER_DAY
        budgets.append(limits.Budget.per(f"data-export:addr:{address}", per_address, 86400))
    shortfall = limits.spend_all(*budgets)
    if shortfall is None:
        return
    hours = max(1, math.ceil(shortfall.wait / 3600))
    if shortfall.budget is own:
        refusal = ngettext(
            "You have asked for your data often today. Please try again in %(hours)d hour.",
            "You have asked for your data often today. Please try again in %(hours)d hours.",
            hours,
        )
    else:
        refusal = ngettext(
            "Many downloads were asked for from your network today. Please try again in %(hours)d hour.",
            "Many downloads were asked for from your network today. Please try again in %(hours)d hours.",
            hours,
        )
    raise PrivacyError(refusal % {"hours": hours})


@transaction.atomic(durable=True)
def export_request(*, user: User, address: str | None = None) -> DataExport:
    """Ask for a download of everything kept about ``user``; a worker prepares it. A second click
    while one is being prepared gets that one; at most ``DATA_EXPORTS_PER_DAY`` clicks a day (each
    download reads the whole history), and ``DATA_EXPORTS_PER_ADDRESS_PER_DAY`` from the browser's
    ``address`` (None when not from one), spent first."""
    _spend_export(user, address)
    User.objects.select_for_update().filter(pk=user.pk).first()  # one request at a time per person
    _fail_stale(user)
    pending = DataExport.objects.filter(user=user, status=DataExport.Status.PENDING).first()
    if pending:
        return pending
    made = DataExport.objects.create(user=user, language=translation.get_language() or settings.LANGUAGE_CODE)
    transaction.on_commit(lambda: current_app.send_task(EXPORT_BUILD, args=[made.pk]))
    return made


def export_build(*, export_id: int) -> bool:
    """Prepare a requested download (the worker's task); False when there is nothing to do (it was
    built already, failed as lost, or deleted): a task run twice builds once."""
    with transaction.atomic(durable=True):
        asked = (
            DataExport.objects.select_for_update(of=("self",))
            .select_related("user")
            .filter(pk=export_id, status=DataExport.Status.PENDING)
            .first()
        )
        if asked is None:
            return False
        with translation.override(asked.language):
            archive = export.archive(asked.user)
        now = timezone.now()
        asked.archive, asked.size = archive, len(archive)
        asked.status, asked.ready_at = DataExport.Status.READY, now
        asked.expires_at = now + timedelta(hours=settings.DATA_EXPORT_KEEP_HOURS)
        asked.save(update_fields=["archive", "size", "status", "ready_at", "expires_at"])
        return True


def export_failed(*, export_id: int) -> None:
    DataExport.objects.filter(pk=export_id, status=DataExport.Status.PENDING).update(
        status=DataExport.Status.FAILED
    )


def export_for_download(*, user: User, export_id: int) -> DataExport | None:
    """A ready, unexpired download of ``user``'s own; None for anyone else's, or one that has gone."""
    return DataExport.objects.filter(
        pk=export_id, user=user, status=DataExport.Status.READY, expires_at__gt=timezone.now()
    ).first()


def exports_of(*, user: User) -> list[DataExport]:
    """The person's downloads still worth showing: the one being prepared, those ready to fetch, and
    the last one if it failed. The archives themselves are not read."""
    _fail_stale(user)
    shown = DataExport.objects.filter(user=user).exclude(expires_at__lte=timezone.now()).defer("archive")
    return list(shown[:5])


# --- Closing an account --------------------------------------------------------------------------------


def _spend_close_attempt(user: User, address: str | None) -> None:
    budgets = [limits.Budget.per(f"close-account:{user.pk}", settings.CLOSE_ACCOUNT_ATTEMPTS_PER_HOUR, 3600)]
    if address is not None:
        per_address = settings.CLOSE_ACCOUNT_ATTEMPTS_PER_ADDRESS_PER_HOUR
        budgets.append(limits.Budget.per(f"close-account:addr:{address}", per_address, 3600))
    if limits.spend_all(*budgets):
        raise PrivacyError(_("Too many tries. Please wait an hour and try again."))


def account_close(*, user: User, password: str, address: str | None = None) -> None:
    """The person closes their own account, their password typed again (a few tries an hour, and a
    few more from the browser's ``address``, None when not from one: an open laptop is not enough to
    close someone's account by guessing, nor a farm of accounts a way to make the site scan sessions)."""
    _spend_close_attempt(user, address)
    if not user.check_password(password):
        raise PrivacyError(_("That is not your password. Your account is still open."))
    account_erase(user=user)


def account_erase(*, user: User, by: User | None = None) -> bool:
    """Erase ``user`` for good, on their own word (``by`` None) or a superuser's (``by``). Their bot
    accounts are closed first, each erased the same way (nobody is left to answer for them). Then a
    stand-in bot takes their seat in every match still going and their live pages close; then, in one
    transaction, every app forgets them: their seats read "a deleted player", their chat and social ties
    go, their downloads go, the account row is emptied, Django's admin log forgets their name and
    their lines, and the ledger keeps the id for ``manage.py restore``. True when this call erased
    them."""
    if by is not None and not by.is_superuser:
        raise PrivacyError(_("Only a superuser can erase an account."))
    if user.erased_at:
        return False
    for bot in open_bot_accounts(user):
        account_erase(user=bot)
    account_services.user_shut_out(user=user)
    with transaction.atomic(durable=True):
        name = user.username
        gameplay_services.participations_forget(user_id=user.pk)
        gameplay_services.holidays_forget(user_id=user.pk)
        social_services.person_forget(user_id=user.pk)
        tournament_services.person_forget(user_id=user.pk)
        notification_services.person_forget(user_id=user.pk)
        review_services.person_forget(user_id=user.pk)
        api_services.person_forget(user_id=user.pk)
        opendata_services.person_forget(user_id=user.pk)
        chat_traces = _chat_forget(user_id=user.pk)
        DataExport.objects.filter(user=user).delete()
        erased = account_services.user_erase(user=user)
        if erased:
            _admin_log_forget(user_id=user.pk, name=name, chat_traces=chat_traces)
            ErasedAccount.objects.get_or_create(user_id=user.pk, defaults={"erased_at": timezone.now()})
    user.refresh_from_db()
    return erased


def bot_account_close(*, owner: User, bot_id: int) -> bool:
    """``owner`` closes one of their bot accounts: erased as a closed account is (a stand-in takes its
    seats in matches still going, its name reads "a deleted player" and is reserved for a while), and
    no longer counted against their ``BOT_ACCOUNTS_PER_PERSON``. True when this call closed it."""
    bot = User.objects.filter(pk=bot_id, bot_owner=owner, is_bot_account=True).first()
    if bot is None:
        raise PrivacyError(_("That is not one of your bot accounts."))
    return account_erase(user=bot)


def _chat_forget(*, user_id: int) -> "Traces | None":
    """The chat forgets the person; where they showed in its rows, read first, for the admin log to
    forget too. None when the chat is left out (``CHAT_ENABLED``): it holds nothing of anyone."""
    if not apps.is_installed("chat"):
        return None
    from chat import selectors as chat_selectors
    from chat import services as chat_services

    traces = chat_selectors.traces_of(user_id=user_id)
    chat_services.person_forget(user_id=user_id)
    return traces


def _admin_log_forget(*, user_id: int, name: str, chat_traces: "Traces | None") -> None:
    """Django's admin log keeps every row's name as it read when someone acted on it: the rows about
    the person (their account, their lines, the reports about them) are named by id from now on, the
    text of their lines goes from what was written about those rows, and their name from every entry.
    Who acted, on which row, when and what they decided stays: the record still stands."""
    erased_name = account_services.ERASED_USERNAME % user_id
    user_type = ContentType.objects.get_for_model(User)
    about_them = Q(content_type=user_type, object_id=str(user_id))
    for model, ids in chat_traces.rows.items() if chat_traces else ():
        about_them |= Q(
            content_type=ContentType.objects.get_for_model(model), object_id__in=[str(pk) for pk in ids]
        )
    about_ids = set(LogEntry.objects.filter(about_them).values_list("pk", flat=True))
    named = re.compile(rf"(?<![\w.@+-]){re.escape(name)}(?![\w.@+-])", re.IGNORECASE)
    entries = list(
        LogEntry.objects.filter(
            Q(pk__in=about_ids) | Q(object_repr__icontains=name) | Q(change_message__icontains=name)
        )
    )
    for entry in entries:
        if entry.pk in about_ids:
            mine = entry.content_type_id == user_type.pk
            entry.object_repr = erased_name if mine else f"#{entry.object_id}"
            entry.change_message = _without(entry.change_message, chat_traces.texts if chat_traces else ())
        entry.object_repr = named.sub(erased_name, entry.object_repr)
        entry.change_message = named.sub(erased_name, entry.change_message)
    LogEntry.objects.bulk_update(entries, ["object_repr", "change_message"])


def _without(words: str, texts: Iterable[str]) -> str:
    """``words`` with every one of ``texts`` quoted in it cut out."""
    for text in sorted(texts, key=len, reverse=True):
        words = words.replace(text, "…")
    return words


# --- Closed accounts a restored backup brings back -----------------------------------------------------


def erasures_ledger() -> dict[int, datetime]:
    """Every account closed for good, by id, and when."""
    return dict(ErasedAccount.objects.values_list("user_id", "erased_at"))


def erasures_reapply(*, ledger: dict[int, datetime]) -> list[int]:
    """After a restore: every account of ``ledger`` (the erasures known before the restore) that the
    backup brought back is erased again, as closing erased it, and this database's ledger holds each
    account it erased. An id whose account here joined after the erasure is someone new's (the backup
    was older than the closed account, and its id was given again): left alone. The ids erased again."""
    erased_again = []
    for person in User.objects.filter(pk__in=list(ledger)).order_by("pk"):
        when = ledger[person.pk]
        if person.date_joined > when:
            continue
        if account_erase(user=person):
            erased_again.append(person.pk)
        ErasedAccount.objects.update_or_create(user_id=person.pk, defaults={"erased_at": when})
    return erased_again


# --- Deleting on schedule what the privacy page says is deleted ---------------------------------------


@dataclass(frozen=True)
class Retention:
    """How many rows of each kind one run of the retention job deleted."""

    logins: int
    failed_logins: int
    downloads: int
    sessions: int
    reserved_names: int
    notices: int
    notifications: int


def retention_run() -> Retention:
    """Delete what has been kept as long as the privacy page says: successful logins after
    ``LOGIN_RECORD_KEEP_DAYS``, failed ones after ``FAILED_LOGIN_KEEP_DAYS``, downloads once expired
    (and lost ones), expired sessions, lapsed name reservations, notices after
    ``NOTICE_KEEP_DAYS`` and pushes and emails sent after ``NOTIFY_KEEP_DAYS``. Each app deletes its
    own rows."""
    now = timezone.now()
    with transaction.atomic(durable=True):
        logins, failed = account_services.login_records_forget_old()
        downloads = DataExport.objects.filter(expires_at__lt=now).delete()[0]
        downloads += (
            DataExport.objects.exclude(status=DataExport.Status.READY)
            .filter(requested_at__lt=now - EXPORT_STALE_AFTER)
            .delete()[0]
        )
        return Retention(
            logins=logins,
            failed_logins=failed,
            downloads=downloads,
            sessions=account_services.sessions_forget_expired(),
            reserved_names=account_services.reserved_names_forget_lapsed(),
            notices=social_services.notices_forget_old(),
            notifications=notification_services.deliveries_forget_old(),
        )
