"""Download my data: the archive holds everything the site keeps about the person and nothing of
anyone else's; a worker prepares it, and only its owner fetches it, only for a while. PostgreSQL."""

import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from gameplay.engine import get_game
from gameplay.models import Match, Move, RoundResult
from privacy import services
from privacy.export import person_data
from privacy.models import DataExport
from tests.factories import make_user
from tests.gameplay.helpers import wait_until
from tests.privacy.conftest import ANA_SAYS, ION_SAYS


def keys_anywhere(value) -> set[str]:
    """Every key of every dict in a JSON value, however deep."""
    if isinstance(value, dict):
        return set(value) | {key for inner in value.values() for key in keys_anywhere(inner)}
    if isinstance(value, list):
        return {key for inner in value for key in keys_anywhere(inner)}
    return set()


def test_the_export_holds_everything_the_site_keeps_about_the_person(world):
    data = person_data(world.ana)
    assert data["profile"]["username"] == "ana" and data["profile"]["email"] == "ana@example.com"
    exported = {match["id"]: match for match in data["matches"]}
    assert set(exported) == {world.finished.pk, world.running.pk, world.practice.pk}
    assert exported[world.practice.pk]["practice"] is True
    for match in (world.finished, world.practice):
        row = exported[match.pk]
        moves = list(Move.objects.filter(match=match).order_by("seq"))
        assert [m["action"] for m in row["moves"]] == [move.action for move in moves]
        assert [m["number"] for m in row["moves"]] == [move.seq for move in moves]
        assert len(row["score_sheet"]) == RoundResult.objects.filter(match=match).count() > 0
        assert row["result"] == match.result and row["your_seats"] == [0]
        assert [seat["name"] for seat in row["seats"] if seat["you"]] == ["ana"]
    assert [seat["name"] for seat in exported[world.finished.pk]["seats"]] == ["ana", "ion"]
    assert [(r["game"], r["rating"], r["peak"]) for r in data["ratings"]] == [("americana", 1512, 1530)]
    assert [(c["match"], c["change"]) for c in data["rating_changes"]] == [(world.finished.pk, 12)]
    assert [f["name"] for f in data["friends"]] == ["ion"]
    assert [b["name"] for b in data["blocked"]] == ["mara"]
    assert [r["from"] for r in data["friend_requests_received"]] == ["mara"]
    assert [n["from"] for n in data["notices"]] == ["mara"]
    said = [line["text"] for line in data["chat_messages"]]
    assert said == [ANA_SAYS, "ana-in-the-running-match"]
    assert [(log["address"], log["browser"]) for log in data["logins"]] == [
        ("203.0.113.7", "Firefox on a phone")
    ]
    assert [(f["address"], f["failures"]) for f in data["failed_logins"]] == [("198.51.100.9", 2)]


def test_the_export_holds_nothing_of_anyone_elses(world):
    data = person_data(world.ana)
    text = json.dumps(data, ensure_ascii=False)
    assert ION_SAYS not in text  # ion's line at their private table is ion's data
    assert "ion@example.com" not in text and "mara@example.com" not in text
    # (a score sheet row of Americana has "hands": what each hand held when the round ended, shown to all)
    assert {"state", "seed", "stock", "hand", "events", "deal_events"} & keys_anywhere(data) == set()
    running = next(match for match in data["matches"] if match["id"] == world.running.pk)
    game = get_game("americana")
    world.running.refresh_from_db()
    hands = game.state_to_json(game.state_from_json(world.running.state))["hands"]
    played = {json.dumps(m["action"].get("card")) for m in running["moves"]}
    running_text = json.dumps(running)
    for seat, hand in enumerate(hands):
        held = {json.dumps(card) for card in hand} - played
        assert held, f"seat {seat} holds cards"
        assert not [card for card in held if card in running_text], f"seat {seat}'s hand leaked"
    assert running["status"] == Match.Status.PLAYING and running["result"] is None


def test_another_persons_export_names_only_what_the_match_page_shows(world):
    ion = person_data(world.ion)
    assert [m["id"] for m in ion["matches"]] == [world.finished.pk, world.running.pk]
    assert [line["text"] for line in ion["chat_messages"]] == [ION_SAYS]
    assert ANA_SAYS not in json.dumps(ion, ensure_ascii=False)
    assert "ana@example.com" not in json.dumps(ion)


def test_a_second_click_gets_the_download_being_prepared_and_a_day_has_a_limit(world, settings):
    """Every click spends from the day's budget (before anything is read), the second too."""
    settings.DATA_EXPORTS_PER_DAY = 3
    first = services.export_request(user=world.ana)
    assert services.export_request(user=world.ana) == first
    DataExport.objects.filter(pk=first.pk).update(status=DataExport.Status.READY)
    second = services.export_request(user=world.ana)
    assert second != first
    DataExport.objects.filter(pk=second.pk).update(status=DataExport.Status.READY)
    with pytest.raises(services.PrivacyError, match="often today"):
        services.export_request(user=world.ana)
    assert DataExport.objects.filter(user=world.ana).count() == 2


def test_a_lost_build_counts_as_failed_and_the_person_may_ask_again(world):
    lost = services.export_request(user=world.ana)
    DataExport.objects.filter(pk=lost.pk).update(requested_at=timezone.now() - timedelta(hours=1))
    again = services.export_request(user=world.ana)
    lost.refresh_from_db()
    assert lost.status == DataExport.Status.FAILED and again.status == DataExport.Status.PENDING
    assert services.export_build(export_id=lost.pk) is False  # the old task arriving late does nothing


@pytest.mark.django_db(transaction=True)
def test_a_worker_prepares_the_download_and_only_its_owner_fetches_it_until_it_expires(celery_worker, world):
    owner = Client()
    owner.force_login(world.ana)
    response = owner.post(reverse("privacy:export"), follow=True)
    assert "being prepared" in response.content.decode()
    made = DataExport.objects.get(user=world.ana)
    assert wait_until(lambda: DataExport.objects.get(pk=made.pk).status == DataExport.Status.READY)
    page = owner.get(reverse("privacy:data")).content.decode()
    download = reverse("privacy:download", args=[made.pk])
    assert download in page
    fetched = owner.get(download)
    assert fetched.status_code == 200 and fetched["Content-Type"] == "application/zip"
    assert fetched["Content-Disposition"].startswith('attachment; filename="septica-data-ana-')
    assert "no-store" in fetched["Cache-Control"]
    with zipfile.ZipFile(io.BytesIO(fetched.content)) as archive:
        assert sorted(archive.namelist()) == ["README.txt", "data.json"]
        data = json.loads(archive.read("data.json"))
        assert "data.json" in archive.read("README.txt").decode()
    assert data["profile"]["username"] == "ana" and len(data["matches"]) == 3
    assert services.export_build(export_id=made.pk) is False  # built once, however often the task runs

    other = Client()
    other.force_login(world.ion)
    assert other.get(download).status_code == 404
    assert Client().get(download).status_code == 302  # to the login page
    DataExport.objects.filter(pk=made.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert owner.get(download).status_code == 404
    assert download not in owner.get(reverse("privacy:data")).content.decode()


def test_the_data_page_needs_a_login_and_preparing_needs_a_post(client, db):
    assert client.get(reverse("privacy:data")).status_code == 302
    client.force_login(make_user("vera"))
    assert client.get(reverse("privacy:export")).status_code == 405
    assert client.get(reverse("privacy:data")).status_code == 200


def test_the_download_keeps_a_name_beyond_latin_1(db):
    """ "Ș" is no Latin-1 letter: the file name travels as RFC 6266's ``filename*``, whole."""
    stefan = make_user("Ștefan")
    now = timezone.now()
    ready = DataExport.objects.create(
        user=stefan,
        language="ro",
        status=DataExport.Status.READY,
        archive=b"PK",
        size=2,
        ready_at=now,
        expires_at=now + timedelta(hours=1),
    )
    owner = Client()
    owner.force_login(stefan)
    fetched = owner.get(reverse("privacy:download", args=[ready.pk]))
    assert fetched.status_code == 200
    assert fetched["Content-Disposition"] == (
        f"attachment; filename*=utf-8''septica-data-%C8%98tefan-{now:%Y-%m-%d}.zip"
    )
