"""Forgetting, whole: closing an account also takes the person's name and lines out of Django's admin
log and their login records out of django-axes, and the ledger of erased accounts makes ``manage.py
restore`` erase them again in what a backup brings back. PostgreSQL."""

from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.db import models
from django.test import Client
from django.utils import timezone
from psycopg import sql

from accounts.models import User
from chat.models import ChatMessage, Report, Room
from config.pgtools import Database
from privacy import services
from privacy.models import ErasedAccount
from tests.factories import PASSWORD, make_user
from tests.gameplay.helpers import human_match
from tests.ops.test_backup import restored, restored_url  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db(transaction=True)

SWORE = "a-line-ana-regrets-typing"


def logged(moderator: User, row: models.Model, message: str = "", *, named: str = "") -> LogEntry:
    """An admin log entry about ``row`` as the admin wrote one, ``named`` as the row's name read then
    (a line's and a report's carried the line's text before they were named by id)."""
    return LogEntry.objects.create(
        user=moderator,
        content_type=ContentType.objects.get_for_model(row),
        object_id=str(row.pk),
        object_repr=named or str(row),
        action_flag=CHANGE,
        change_message=message,
    )


@pytest.fixture
def ana_said() -> tuple[User, User, ChatMessage]:
    """ana, a line she typed at a table, and ion who reported it."""
    match, (ana, ion) = human_match("americana", 2, prefix="p")
    User.objects.filter(pk=ana.pk).update(username="ana")
    ana.refresh_from_db()
    said = ChatMessage.objects.create(
        table=match.table, match=match, room=Room.PLAYERS, author=ana, text=SWORE, shown=SWORE
    )
    return ana, ion, said


def test_closing_takes_the_name_and_the_lines_out_of_the_admin_log_and_the_login_records(ana_said):
    ana, ion, said = ana_said
    moderator = make_user("mod", is_staff=True)
    report = Report.objects.create(message=said, reporter=ion, reason=Report.Reason.ABUSE)
    about_her = logged(moderator, ana, "Banned for a week: Ana swore at ion")
    about_the_line = logged(moderator, said, named=f"ana: {SWORE}")
    about_the_report = logged(moderator, report, f"Remove: she wrote {SWORE}", named=f"ana: {SWORE} (abuse)")
    about_a_seat = logged(moderator, said.table, "Removed ana; a bot took the seat.")
    unrelated = logged(moderator, ion, "banana is not ana's friend? ion asked")
    now = timezone.now()
    AccessLog.objects.create(username="ana", ip_address="203.0.113.7", user_agent="phone", attempt_time=now)
    AccessFailureLog.objects.create(
        username="ana", ip_address="203.0.113.7", user_agent="x", attempt_time=now
    )
    AccessAttempt.objects.create(
        username="ana", ip_address="203.0.113.7", user_agent="x", attempt_time=now, failures_since_start=1
    )

    services.account_close(user=ana, password=PASSWORD)

    gone = f"~deleted-{ana.pk}"
    entries = {entry.pk: entry for entry in LogEntry.objects.all()}
    assert len(entries) == 5, "every entry stays: who did what, when"
    assert (entries[about_her.pk].object_repr, entries[about_her.pk].change_message) == (
        gone,
        f"Banned for a week: {gone} swore at ion",
    )
    assert entries[about_the_line.pk].object_repr == f"#{said.pk}"
    assert (entries[about_the_report.pk].object_repr, entries[about_the_report.pk].change_message) == (
        f"#{report.pk}",
        "Remove: she wrote …",
    )
    assert entries[about_a_seat.pk].change_message == f"Removed {gone}; a bot took the seat."
    assert entries[unrelated.pk].change_message == f"banana is not {gone}'s friend? ion asked"
    for entry in entries.values():
        assert SWORE not in entry.object_repr + entry.change_message
    for record in (AccessLog, AccessFailureLog, AccessAttempt):
        assert not record.objects.filter(username__iexact="ana").exists()
    assert ErasedAccount.objects.get().user_id == ana.pk


def test_an_id_given_again_to_someone_new_is_not_erased_by_an_older_ledger(db):
    newcomer = make_user("vera", fresh=True)
    closed_before_she_came = timezone.now() - timedelta(hours=1)
    assert services.erasures_reapply(ledger={newcomer.pk: closed_before_she_came}) == []
    newcomer.refresh_from_db()
    assert newcomer.erased_at is None and newcomer.username == "vera"
    assert not ErasedAccount.objects.exists()


def still_gone(database: Database, ana: User, session_key: str) -> None:
    """In ``database``: ana's row emptied, her sessions and lines gone, the ledger holding her."""
    with database.connect() as restored_db:
        username, email, erased_at = restored_db.execute(
            sql.SQL("SELECT username, email, erased_at FROM {} WHERE id = %s").format(
                sql.Identifier(User._meta.db_table)
            ),
            [ana.pk],
        ).fetchone()
        (sessions,) = restored_db.execute(
            sql.SQL("SELECT count(*) FROM {} WHERE session_key = %s").format(
                sql.Identifier(Session._meta.db_table)
            ),
            [session_key],
        ).fetchone()
        (lines,) = restored_db.execute(
            sql.SQL("SELECT count(*) FROM {} WHERE author_id = %s OR text = %s").format(
                sql.Identifier(ChatMessage._meta.db_table)
            ),
            [ana.pk, SWORE],
        ).fetchone()
        (ledger,) = restored_db.execute(
            sql.SQL("SELECT count(*) FROM {} WHERE user_id = %s").format(
                sql.Identifier(ErasedAccount._meta.db_table)
            ),
            [ana.pk],
        ).fetchone()
    assert (username, email) == (f"~deleted-{ana.pk}", "") and erased_at is not None
    assert (sessions, lines, ledger) == (0, 0, 1)


def backed_up_then_closed(ana: User, directory: Path) -> tuple[Path, str]:
    """ana logged in, a backup made, then her account closed: the dump, and her session's key."""
    browser = Client()
    browser.force_login(ana)
    call_command("backup", directory=directory)
    (dump,) = directory.iterdir()
    services.account_close(user=ana, password=PASSWORD)
    return dump, browser.session.session_key


def test_a_backup_restored_into_another_database_does_not_bring_a_closed_account_back(
    ana_said,
    restored,  # noqa: F811
    tmp_path,
):
    ana, _ion, _said = ana_said
    dump, session_key = backed_up_then_closed(ana, tmp_path)
    call_command("restore", str(dump), database_url=restored_url(), create_db=True, interactive=False)
    still_gone(restored, ana, session_key)


def test_a_backup_restored_over_the_site_s_database_does_not_bring_a_closed_account_back(ana_said, tmp_path):
    ana, _ion, _said = ana_said
    dump, session_key = backed_up_then_closed(ana, tmp_path)
    call_command("restore", str(dump), interactive=False)
    still_gone(Database.site(), ana, session_key)
    assert User.objects.get(pk=ana.pk).username == f"~deleted-{ana.pk}"


def test_the_privacy_page_says_how_long_backups_are_kept(client, settings):
    settings.BACKUP_KEEP = 9
    page = client.get("/privacy/").content.decode()
    assert "each backup is deleted after 9 days" in page
    assert "does not bring the account back" in page
