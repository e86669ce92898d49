"""A person's own data: preparing their download, closing their account, and deleting on schedule
what the privacy page says is deleted. The one way each is done, from the account page, the admin and
the worker alike."""

import math
from dataclasses import dataclass
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import services as account_services
from accounts.models import User
from chat import services as chat_services
from gameplay import services as gameplay_services
from social import services as social_services
from tables import limits

from . import export
from .models import DataExport

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


@transaction.atomic(durable=True)
def export_request(*, user: User) -> DataExport:
    """Ask for a download of everything kept about ``user``; a worker prepares it. A second click
    while one is being prepared gets that one; at most ``DATA_EXPORTS_PER_DAY`` a day (each reads the
    whole history)."""
    User.objects.select_for_update().filter(pk=user.pk).first()  # one request at a time per person
    _fail_stale(user)
    pending = DataExport.objects.filter(user=user, status=DataExport.Status.PENDING).first()
    if pending:
        return pending
    daily = settings.DATA_EXPORTS_PER_DAY
    if wait := limits.spend(f"data-export:{user.pk}", rate=daily / 86400, burst=daily):
        hours = max(1, math.ceil(wait / 3600))
        raise PrivacyError(
            ngettext(
                "You have asked for your data often today. Please try again in %(hours)d hour.",
                "You have asked for your data often today. Please try again in %(hours)d hours.",
                hours,
            )
            % {"hours": hours}
        )
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


def _spend_close_attempt(user: User) -> None:
    hourly = settings.CLOSE_ACCOUNT_ATTEMPTS_PER_HOUR
    if limits.spend(f"close-account:{user.pk}", rate=hourly / 3600, burst=hourly):
        raise PrivacyError(_("Too many tries. Please wait an hour and try again."))


def account_close(*, user: User, password: str) -> None:
    """The person closes their own account, their password typed again (a few tries an hour: an open
    laptop is not enough to close someone's account by guessing)."""
    _spend_close_attempt(user)
    if not user.check_password(password):
        raise PrivacyError(_("That is not your password. Your account is still open."))
    account_erase(user=user)


def account_erase(*, user: User, by: User | None = None) -> bool:
    """Erase ``user`` for good, on their own word (``by`` None) or a superuser's (``by``). First a
    stand-in bot takes their seat in every match still going and their live pages close; then, in one
    transaction, every app forgets them: their seats read "a deleted player", their chat and social ties
    go, their downloads go, and the account row is emptied. True when this call erased them."""
    if by is not None and not by.is_superuser:
        raise PrivacyError(_("Only a superuser can erase an account."))
    if user.erased_at:
        return False
    account_services.user_shut_out(user=user)
    with transaction.atomic(durable=True):
        gameplay_services.participations_forget(user_id=user.pk)
        social_services.person_forget(user_id=user.pk)
        chat_services.person_forget(user_id=user.pk)
        DataExport.objects.filter(user=user).delete()
        erased = account_services.user_erase(user=user)
    user.refresh_from_db()
    return erased


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


def retention_run() -> Retention:
    """Delete what has been kept as long as the privacy page says: successful logins after
    ``LOGIN_RECORD_KEEP_DAYS``, failed ones after ``FAILED_LOGIN_KEEP_DAYS``, downloads once expired
    (and lost ones), expired sessions, lapsed name reservations, and notices after
    ``NOTICE_KEEP_DAYS``. Each app deletes its own rows."""
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
        )
