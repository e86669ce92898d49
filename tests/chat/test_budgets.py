"""The chat's budgets are spent before any database work (a flood costs no query), reports and
ignores are budgeted per address too, and a host's "phrases only" switch is budgeted, with a burst of
switches announced to the table's pages once."""

from collections.abc import Iterator

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chat import services
from chat.models import Ignore, Report
from tables import events as table_events
from tables.events import table_group
from tests.chat.conftest import open_table
from tests.conftest import queued
from tests.factories import make_user
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.django_db

ANNOUNCE = "chat.tasks.settings_announce"


@pytest.fixture
def played():
    """A running match of two and a quick phrase a spectator said in the spectators' room."""
    match, (ana, ion) = human_match("americana", 2, clock=45, prefix="b")
    watcher = make_user("watcher")
    return match, ana, ion, services.chat_say(table_id=match.table_id, user=watcher, phrase="luck")


@pytest.fixture
def group_sends() -> Iterator[list[tuple[str, dict]]]:
    """Every group message this process sends while the test runs."""
    sent: list[tuple[str, dict]] = []

    def heard(group: str, message: dict) -> None:
        sent.append((group, message))

    table_events.hear_here_first(heard)
    yield sent
    table_events._HERE.remove(heard)


def test_a_line_refused_by_the_budget_reads_nothing(played, settings):
    settings.CHAT_MESSAGES_PER_10_SECONDS = 1
    match, ana, _ion, _line = played
    services.chat_say(table_id=match.table_id, user=ana, phrase="gg")
    with (
        CaptureQueriesContext(connection) as queries,
        pytest.raises(services.ChatRefused, match="too quickly"),
    ):
        services.chat_say(table_id=match.table_id, user=ana, phrase="luck")
    assert [query["sql"] for query in queries] == []


def test_a_report_or_an_ignore_refused_by_the_budget_reads_nothing(played, settings):
    settings.CHAT_REPORTS_PER_HOUR = 1
    _match, ana, _ion, line = played
    services.chat_report(user=ana, message_id=line.pk, reason=Report.Reason.SPAM)
    for refused in (
        lambda: services.chat_report(user=ana, message_id=line.pk, reason=Report.Reason.ABUSE),
        lambda: services.chat_ignore(user=ana, message_id=line.pk),
    ):
        with (
            CaptureQueriesContext(connection) as queries,
            pytest.raises(services.ChatRefused, match="too many"),
        ):
            refused()
        assert [query["sql"] for query in queries] == []
    assert not Ignore.objects.exists()


def test_reports_and_ignores_from_one_address_are_stopped_by_its_budget(played, settings):
    settings.CHAT_REPORTS_PER_ADDRESS_PER_HOUR = 2
    _match, _ana, _ion, line = played
    readers = [make_user(f"reader{index}") for index in range(3)]
    services.chat_report(
        user=readers[0], message_id=line.pk, reason=Report.Reason.SPAM, address="203.0.113.5"
    )
    services.chat_ignore(user=readers[1], message_id=line.pk, address="203.0.113.5")
    with pytest.raises(services.ChatRefused) as refused:
        services.chat_report(
            user=readers[2], message_id=line.pk, reason=Report.Reason.SPAM, address="203.0.113.5"
        )
    assert (
        refused.value.template == "Too many reports and ignores have come from your network: try again later."
    )
    services.chat_report(user=readers[2], message_id=line.pk, reason=Report.Reason.SPAM, address="10.0.0.1")
    assert Report.objects.count() == 2


def test_the_phrases_only_switch_has_a_budget_spent_before_anything_is_read(settings):
    settings.CHAT_PHRASES_ONLY_TOGGLES_PER_MINUTE = 3
    host = make_user("host")
    table = open_table(host)
    for on in (True, False, True):
        services.chat_set_phrases_only(table_id=table.pk, user=host, on=on)
    with CaptureQueriesContext(connection) as queries, pytest.raises(services.ChatRefused, match="too often"):
        services.chat_set_phrases_only(table_id=table.pk, user=host, on=False)
    assert [query["sql"] for query in queries] == []


def test_a_burst_of_switches_is_announced_once_as_it_ends(
    broker, group_sends, django_capture_on_commit_callbacks, settings
):
    from chat import tasks

    settings.CHAT_PHRASES_ONLY_TOGGLES_PER_MINUTE = 10
    host = make_user("host")
    table = open_table(host)
    with django_capture_on_commit_callbacks(execute=True):
        for on in (True, False, True, False, True):
            services.chat_set_phrases_only(table_id=table.pk, user=host, on=on)
    assert not [message for group, message in group_sends if message["type"] == "chat.settings"]
    (announcement,) = queued(broker, ANNOUNCE)  # one for the burst
    assert announcement["headers"]["eta"] is not None  # later, once the burst is over
    tasks.settings_announce(table.pk)
    assert group_sends == [(table_group(table.pk), {"type": "chat.settings", "table": table.pk})]
    # Switched off and on again: the pages already show "on", so nothing more is sent.
    with django_capture_on_commit_callbacks(execute=True):
        services.chat_set_phrases_only(table_id=table.pk, user=host, on=False)
        services.chat_set_phrases_only(table_id=table.pk, user=host, on=True)
    assert len(queued(broker, ANNOUNCE)) == 2  # the burst's own announcement
    tasks.settings_announce(table.pk)
    assert len(group_sends) == 1
