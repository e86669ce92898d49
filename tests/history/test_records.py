"""A finished match's public record (history.records): whole, and nothing in it that was hidden."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from gameplay.models import Match, Move, RoundResult
from history.records import RECORD_FORMAT, open_matches, public_record, public_records
from privacy import services as privacy_services
from tests.factories import make_user
from tests.history.helpers import finished_match, play_out
from tests.ratings.helpers import rated_table_match

pytestmark = pytest.mark.django_db

HIDDEN_KEYS = {"seed", "state", "rng", "stock", "hand", "hand_counts", "deal_events", "events"}


def rated_played(game: str, people: list, seed: int = 0) -> Match:
    match = play_out(rated_table_match(game, people), seed)
    assert match.status == Match.Status.FINISHED and match.table.is_rated
    return match


def keys_of(value) -> set[str]:
    """Every key of every mapping inside ``value``."""
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in keys_of(item)}
    if isinstance(value, list):
        return {key for item in value for key in keys_of(item)}
    return set()


@pytest.mark.parametrize("game", ["americana", "classic"])
def test_the_record_holds_every_move_and_round_and_nothing_hidden(ana, ion, game):
    match = rated_played(game, [ana, ion])
    record = public_record(match)
    assert json.loads(json.dumps(record)) == record, "JSON as it is"
    assert record["format"] == RECORD_FORMAT
    assert (record["id"], record["game"], record["options"]) == (match.pk, game, match.options)
    assert record["table"]["private"] is False and record["table"]["rated"] is True
    assert record["finished_at"] == match.finished_at.isoformat()
    assert record["result"] == match.result
    moves = list(Move.objects.filter(match=match).order_by("seq"))
    assert len(record["moves"]) == match.moves_made == len(moves) > 20
    for written, move in zip(record["moves"], moves, strict=True):
        assert (written["seq"], written["seat"], written["action"], written["by"]) == (
            move.seq,
            move.seat,
            move.action,
            move.actor,
        )
        # a card is named only when it goes down face up: a draw or a take says nothing of what came
        assert ("card" in written["action"]) == (written["action"]["type"] == "play")
    rounds = list(RoundResult.objects.filter(match=match).order_by("number"))
    assert [row["number"] for row in record["rounds"]] == [row.number for row in rounds]
    assert record["rounds"][0] == {"number": rounds[0].number, **rounds[0].summary}
    assert [(seat["position"], seat["name"], seat["bot"], seat["deleted"]) for seat in record["seats"]] == [
        (0, "ana", None, False),
        (1, "ion", None, False),
    ]
    assert not keys_of(record) & HIDDEN_KEYS
    assert str(match.seed) not in json.dumps({k: v for k, v in record.items() if k != "moves"})


def test_a_closed_account_reads_a_deleted_player_and_bots_by_their_seat(ana):
    match = finished_match("americana", [ana], {"players": 3}, private=True)
    privacy_services.account_erase(user=ana)
    seats = public_record(match)["seats"]
    assert [(seat["name"], seat["bot"], seat["deleted"]) for seat in seats] == [
        ("a deleted player", None, True),
        ("Bot 2", "easy", False),
        ("Bot 3", "easy", False),
    ]
    assert '"ana"' not in json.dumps(public_record(match))


def test_the_record_is_english_whatever_the_language(ana):
    match = finished_match("classic", [ana], private=True)
    privacy_services.account_erase(user=ana)
    with translation.override("ro"):
        seats = public_record(match)["seats"]
    assert [seat["name"] for seat in seats] == ["a deleted player", "Bot 2"]


def test_a_seat_a_bot_stood_in_for_says_so(ana, ion):
    match = rated_played("americana", [ana, ion], seed=3)  # play_out has a bot stand in now and then
    stood_in = set(Move.objects.filter(match=match, actor=Move.Actor.TAKEOVER).values_list("seat", flat=True))
    assert stood_in
    assert {seat["position"] for seat in public_record(match)["seats"] if seat["taken_over"]} == stood_in


def test_only_finished_public_rated_online_matches_are_open(ana, ion):
    rated = rated_played("americana", [ana, ion])
    casual = play_out(rated_table_match("americana", [ana, ion], rated=False))
    private = finished_match("classic", [ana, ion], private=True)
    playing = rated_table_match("classic", [make_user("vera"), make_user("dan")])
    practice = rated_played("classic", [ana, ion])
    Match.objects.filter(pk=practice.pk).update(practice=True)
    assert {casual.status, private.status, playing.status} == {Match.Status.FINISHED, Match.Status.PLAYING}
    assert list(open_matches()) == [rated]
    with pytest.raises(ValueError):
        public_record(playing)


def test_many_records_take_the_same_queries_as_one(ana, ion):
    one = rated_played("americana", [ana, ion])
    with CaptureQueriesContext(connection) as alone:
        assert [record["id"] for record in public_records(Match.objects.filter(pk=one.pk))] == [one.pk]
    others = [rated_played(game, [ana, ion], seed) for seed, game in enumerate(["classic", "americana"], 1)]
    with CaptureQueriesContext(connection) as together:
        records = list(public_records(open_matches()))
    assert [record["id"] for record in records] == sorted([one.pk] + [m.pk for m in others])
    assert len(together) == len(alone) <= 5
    assert records == sorted((public_record(match) for match in [one, *others]), key=lambda r: r["id"])
