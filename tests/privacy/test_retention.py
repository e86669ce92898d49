"""The retention job deletes what the privacy page says is deleted, when it says so, and nothing else;
beat runs it, and a real worker runs the task. PostgreSQL and Redis."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessLog
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.models import ReservedName
from notifications.models import Delivery
from privacy import services
from privacy.models import DataExport
from privacy.tasks import retention
from social.models import Notice
from tests.factories import make_user
from tests.gameplay.helpers import wait_until


def aged(model, row, field: str, by: timedelta):
    model.objects.filter(pk=row.pk).update(**{field: timezone.now() - by})
    return row.pk


@pytest.fixture
def kept_and_due(ana, ion):
    """One row of each kind just past its time (due) and one just inside it (kept)."""
    day = timedelta(days=1)
    login_days, failed_days = settings.LOGIN_RECORD_KEEP_DAYS, settings.FAILED_LOGIN_KEEP_DAYS

    def login():
        return AccessLog.objects.create(username="ana", ip_address="203.0.113.7", user_agent="x")

    def failed():
        return AccessAttempt.objects.create(
            username="ana",
            ip_address="203.0.113.8",
            user_agent=f"browser {AccessAttempt.objects.count()}",  # one row per name, address and browser
            get_data="",
            post_data="",
            failures_since_start=1,
        )

    def download(status=DataExport.Status.READY):
        return DataExport.objects.create(
            user=ana, status=status, language="en", expires_at=timezone.now() + day
        )

    def session():
        store = SessionStore()
        store.create()
        return Session.objects.get(pk=store.session_key)

    def notice():
        return Notice.objects.create(recipient=ana, sender=ion, kind=Notice.Kind.FRIEND_REQUEST)

    def sent_email():
        return Delivery.objects.create(
            user=ana,
            kind="warning",
            way="email",
            key=f"warning:{Delivery.objects.count()}",
            due_at=timezone.now(),
            sent_at=timezone.now(),
        )

    due = {
        "logins": [aged(AccessLog, login(), "attempt_time", timedelta(days=login_days) + day)],
        "failed_logins": [aged(AccessAttempt, failed(), "attempt_time", timedelta(days=failed_days) + day)],
        "downloads": [
            aged(DataExport, download(), "expires_at", timedelta(seconds=1)),
            aged(DataExport, download(DataExport.Status.FAILED), "requested_at", timedelta(hours=1)),
        ],
        "sessions": [aged(Session, session(), "expire_date", timedelta(seconds=1))],
        "reserved_names": [ReservedName.objects.create(digest="a" * 64, until=timezone.now() - day).pk],
        "notices": [aged(Notice, notice(), "created_at", timedelta(days=settings.NOTICE_KEEP_DAYS) + day)],
        "notifications": [
            aged(Delivery, sent_email(), "created_at", timedelta(days=settings.NOTIFY_KEEP_DAYS) + day)
        ],
    }
    kept = {
        "logins": [aged(AccessLog, login(), "attempt_time", timedelta(days=login_days) - day)],
        "failed_logins": [aged(AccessAttempt, failed(), "attempt_time", timedelta(days=failed_days) - day)],
        "downloads": [download().pk, download(DataExport.Status.PENDING).pk],
        "sessions": [session().pk],
        "reserved_names": [ReservedName.objects.create(digest="b" * 64, until=timezone.now() + day).pk],
        "notices": [aged(Notice, notice(), "created_at", timedelta(days=settings.NOTICE_KEEP_DAYS) - day)],
        "notifications": [
            aged(Delivery, sent_email(), "created_at", timedelta(days=settings.NOTIFY_KEEP_DAYS) - day)
        ],
    }
    return due, kept


MODELS = {
    "logins": AccessLog,
    "failed_logins": AccessAttempt,
    "downloads": DataExport,
    "sessions": Session,
    "reserved_names": ReservedName,
    "notices": Notice,
    "notifications": Delivery,
}


def left(kind: str) -> set:
    return set(MODELS[kind].objects.values_list("pk", flat=True))


def test_the_retention_job_deletes_exactly_what_has_been_kept_long_enough(kept_and_due):
    due, kept = kept_and_due
    ran = services.retention_run()
    assert {kind: getattr(ran, kind) for kind in MODELS} == {kind: len(rows) for kind, rows in due.items()}
    for kind in MODELS:
        assert left(kind) == set(kept[kind]), kind
    assert services.retention_run() == services.Retention(0, 0, 0, 0, 0, 0, 0), "a second run finds nothing"


def test_beat_runs_the_retention_job_every_hour():
    entry = settings.CELERY_BEAT_SCHEDULE["retention"]
    assert entry["task"] == retention.name == "privacy.tasks.retention"
    assert entry["schedule"] == 3600


@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_the_retention_task(celery_worker):
    old = AccessLog.objects.create(username="vera", ip_address="203.0.113.9", user_agent="x")
    aged(AccessLog, old, "attempt_time", timedelta(days=settings.LOGIN_RECORD_KEEP_DAYS + 1))
    make_user("vera")
    retention.delay()
    assert wait_until(lambda: not AccessLog.objects.filter(pk=old.pk).exists())
