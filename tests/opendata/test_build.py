"""Building a month's file: only the public rated matches, each line the match's public record, the
checksum of the bytes written, one build at a time, and the same from the command."""

import hashlib
import io
import json
from datetime import UTC, date, datetime, timedelta

import pytest
import zstandard
from django.core.management import call_command
from django.utils import timezone

from gameplay.models import Match, Participant
from history.records import public_record
from opendata import services
from opendata.models import Dump
from opendata.selectors import read_records
from tests.opendata.helpers import SAID, month_of_matches, rated_played

pytestmark = pytest.mark.django_db


def this_month() -> date:
    return timezone.now().astimezone(UTC).date().replace(day=1)


def test_a_month_holds_its_public_rated_matches_each_as_its_record(ana, ion, open_data_root):
    month = month_of_matches(ana, ion)
    dumps = {game: services.build(game=game, month=this_month()) for game in ("americana", "classic")}
    for game, published in (("americana", month.americana), ("classic", month.classic)):
        dump = dumps[game]
        path = open_data_root / dump.file_name
        assert dump.file_name == f"septica-{game}-{this_month():%Y-%m}.jsonl.zst"
        assert (dump.matches, dump.size) == (1, path.stat().st_size)
        assert dump.built_at and dump.building_since is None
        assert list(read_records(path)) == [public_record(published)]
        raw = path.read_bytes()
        assert hashlib.sha256(raw).hexdigest() == dump.sha256
        assert (
            open_data_root / f"{dump.file_name}.sha256"
        ).read_text() == f"{dump.sha256}  {dump.file_name}\n"
        text = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read().decode()
        assert (
            text.count("\n") == 1 and SAID not in text and str(published.seed) not in text.split('"moves"')[0]
        )
    assert [p.name for p in open_data_root.iterdir() if p.name.startswith(".")] == [], "no part file left"


def test_a_month_with_no_open_match_makes_an_empty_file_and_another_month_leaves_it_out(
    ana, ion, open_data_root
):
    rated = rated_played("americana", [ana, ion])
    Match.objects.filter(pk=rated.pk).update(finished_at=datetime(2026, 3, 31, 23, 59, 59, tzinfo=UTC))
    march = services.build(game="americana", month=date(2026, 3, 1))
    april = services.build(game="americana", month=date(2026, 4, 1))
    assert [record["id"] for record in read_records(open_data_root / march.file_name)] == [rated.pk]
    assert (april.matches, list(read_records(open_data_root / april.file_name))) == (0, [])


def test_a_build_asked_for_while_one_runs_is_done_once_more_after_it(ana, ion, monkeypatch, open_data_root):
    rated_played("americana", [ana, ion])
    running = Dump.objects.create(game="americana", month=this_month(), building_since=timezone.now())
    assert services.build(game="americana", month=this_month()) is None
    running.refresh_from_db()
    assert running.wanted_again and running.built_at is None

    # A build that meets a closing account midway goes round again and ends with the new names.
    Dump.objects.filter(pk=running.pk).update(building_since=None, wanted_again=False)
    records, rounds = services.public_records, []

    def meanwhile(matches):
        rounds.append(matches)
        if len(rounds) == 1:
            assert services.build(game="americana", month=this_month()) is None
            Participant.objects.filter(user=ana).update(name="")
        return records(matches)

    monkeypatch.setattr(services, "public_records", meanwhile)
    dump = services.build(game="americana", month=this_month())
    assert len(rounds) == 2 and not dump.wanted_again and dump.building_since is None
    seats = next(read_records(open_data_root / dump.file_name))["seats"]
    assert [seat["name"] for seat in seats] == ["a deleted player", "ion"]


def test_a_build_lost_with_its_worker_does_not_stop_the_next(ana, ion):
    rated_played("classic", [ana, ion])
    lost = timezone.now() - services.BUILD_LOST_AFTER - timedelta(minutes=1)
    Dump.objects.create(game="classic", month=this_month(), building_since=lost)
    assert services.build(game="classic", month=this_month()).matches == 1


def test_the_command_builds_a_month_of_a_game(ana, ion, capsys, open_data_root):
    match = rated_played("classic", [ana, ion])
    call_command("opendata", "--month", f"{this_month():%Y-%m}", "--game", "classic")
    dump = Dump.objects.get(game="classic", month=this_month())
    assert f"{dump.file_name}: 1 matches" in capsys.readouterr().out
    assert [record["id"] for record in read_records(open_data_root / dump.file_name)] == [match.pk]
    assert json.loads(json.dumps(next(read_records(open_data_root / dump.file_name)))) == public_record(match)


def test_beat_builds_last_month_of_each_game_that_had_matches(ana, ion, open_data_root):
    match = rated_played("americana", [ana, ion])
    last = services.last_month()
    Match.objects.filter(pk=match.pk).update(
        finished_at=services.selectors.month_start(last) + timedelta(days=2)
    )
    built = services.monthly()
    assert [(dump.game, dump.month, dump.matches) for dump in built] == [("americana", last, 1)]
    assert services.last_month(datetime(2026, 1, 1, 0, 30, tzinfo=UTC)) == date(2025, 12, 1)
