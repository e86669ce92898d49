"""Matches in Django admin: read-only, filterable, searchable, the sheet and moves inline, and abort."""

from django.contrib.admin.models import LogEntry
from django.urls import reverse

from gameplay.models import Match
from tables.models import Table
from tests.factories import make_user
from tests.history.helpers import mark_over, play_out, seated_match


def test_the_match_admin_filters_searches_and_is_read_only(client, moderator, ana, ion):
    classic = play_out(seated_match("classic", [ana, ion], {"players": 2}))
    running = seated_match("americana", [ana], {"players": 2})
    mark_over(seated_match("americana", [make_user("eve")], {"players": 2}), aborted=True)
    client.force_login(moderator)
    url = reverse("admin:gameplay_match_changelist")
    assert client.get(url).context["cl"].result_count == 3
    assert client.get(url, {"q": "ion"}).context["cl"].result_count == 1
    assert client.get(url, {"q": "ana"}).context["cl"].result_count == 2
    assert client.get(url, {"game__exact": "classic"}).context["cl"].result_count == 1
    assert client.get(url, {"status__exact": "playing"}).context["cl"].result_count == 1
    assert client.get(url, {"status__exact": "aborted"}).context["cl"].result_count == 1
    year = classic.started_at.year
    assert client.get(url, {"started_at__year": year}).context["cl"].result_count == 3

    change = client.get(reverse("admin:gameplay_match_change", args=[classic.pk]))
    assert change.status_code == 200
    page = change.text
    assert 'name="_save"' not in page  # view only
    assert page.count('class="field-sheet_row"') == classic.rounds.count()
    assert page.count('class="field-seq"') == classic.moves.count()
    # The rows and the options as the score sheet says them, not as raw JSON.
    assert "won the deal" in page or "a tie" in page
    assert "points to 8" in page and "deal_points" not in page
    before = classic.state
    client.post(reverse("admin:gameplay_match_change", args=[classic.pk]), {"status": "aborted"})
    classic.refresh_from_db()
    assert classic.status == Match.Status.FINISHED and classic.state == before
    assert client.get(reverse("admin:gameplay_match_add")).status_code == 403
    assert client.get(reverse("admin:gameplay_match_delete", args=[running.pk])).status_code == 403


def test_a_moderator_aborts_a_running_match_and_its_players_are_told(
    client, moderator, ana, django_capture_on_commit_callbacks
):
    running = seated_match("americana", [ana], {"players": 2})
    finished = play_out(seated_match("classic", [ana], {"players": 2}))
    client.force_login(moderator)
    with django_capture_on_commit_callbacks() as callbacks:
        client.post(
            reverse("admin:gameplay_match_changelist"),
            {"action": "abort_matches", "_selected_action": [running.pk, finished.pk]},
        )
    running.refresh_from_db()
    assert running.status == Match.Status.ABORTED
    assert running.abort_reason == "Stopped by a moderator."
    assert Table.objects.get(pk=running.table_id).status == Table.Status.CLOSED
    assert Match.objects.get(pk=finished.pk).status == Match.Status.FINISHED  # only running ones
    assert callbacks  # the table's seats and the lobby are told once it commits
    entry = LogEntry.objects.get(object_id=str(running.pk))
    assert entry.user == moderator and "Aborted by a moderator." in entry.change_message
    assert not LogEntry.objects.filter(object_id=str(finished.pk), content_type=entry.content_type).exists()

    client.force_login(ana)
    table_page = client.get(reverse("gameplay:table", args=[running.table_id])).text
    assert "The match was stopped: Stopped by a moderator." in table_page
    client.cookies["django_language"] = "ro"
    assert "Oprită de un moderator." in client.get(reverse("gameplay:table", args=[running.table_id])).text
    history = client.get(reverse("history:mine"), {"result": "abandoned"})
    assert [row.match.pk for row in history.context["rows"]] == [running.pk]


def test_only_moderators_open_the_match_admin(client, ana):
    client.force_login(ana)
    assert client.get(reverse("admin:gameplay_match_changelist")).status_code == 302
