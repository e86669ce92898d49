"""The limits on practice uploads: a budget per person shared by every server process, a cap on the
practice matches kept, a match sent again found before any replay, refused uploads paid for, and
hostile bodies (nested deep, texts a megabyte long, wrong types anywhere, times from another age)
refused with a 400 that says why, never a 500. Through the test client on PostgreSQL and Redis."""

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from functools import cache

import pytest
from django.conf import settings
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from gameplay.models import Match
from practice import uploads as services
from tests.practice.test_save import SAVE, nothing_written, post, practice_upload

pytestmark = pytest.mark.django_db


@cache
def _played(seed: int) -> str:
    return json.dumps(practice_upload("classic", {"players": 2}, seed=seed))


def upload(seed: int = 11) -> dict:
    """A whole classic match as the browser sends it, a new copy each time."""
    return json.loads(_played(seed))


@pytest.fixture
def budget(settings):
    """Three steps, no refill worth the name during a test, five more for a refused upload."""
    settings.PRACTICE_UPLOAD_BURST = 3
    settings.PRACTICE_UPLOADS_PER_HOUR = 1
    settings.PRACTICE_REFUSED_UPLOAD_STEPS = 5
    return settings


def test_a_person_saving_too_fast_is_told_when_to_try_again_in_their_language(client, ana, ion, budget):
    client.force_login(ana)
    assert [post(client, upload(seed)).status_code for seed in (1, 2, 3)] == [201, 201, 201]
    refused = post(client, upload(4))
    assert refused.status_code == 429
    # One step an hour: the next comes in an hour, and sending too early costs one more.
    assert refused.json() == {
        "error": "You are saving practice matches faster than the site takes them: try again in 2\xa0hours."
    }
    assert 7100 < int(refused["Retry-After"]) <= 7200
    romanian = post(client, upload(4), **{"Accept-Language": "ro"})
    assert romanian.status_code == 429
    assert romanian.json()["error"].startswith("Salvezi partidele de antrenament mai repede")
    assert Match.objects.count() == 3
    client.force_login(ion)  # a budget is a person's own
    assert post(client, upload(4)).status_code == 201


@pytest.mark.skipif(settings.EMBEDDED, reason="Needs Redis (REDIS_URL): the embedded mode is one process.")
def test_the_budget_is_shared_by_every_server_process(client, ana, budget):
    """Another process (another Daphne) spends the person's budget: this one refuses them."""
    spend = (
        "import django; django.setup()\n"
        "from accounts import limits\n"
        "from practice.uploads import PRACTICE_BUDGET\n"
        f"budget = PRACTICE_BUDGET.format(user_id={ana.pk})\n"
        "assert limits.spend(budget, rate=1 / 3600, burst=3, cost=3) == 0\n"
    )
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    subprocess.run([sys.executable, "-c", spend], check=True, env=environment, cwd=settings.BASE_DIR)
    client.force_login(ana)
    assert post(client, upload()).status_code == 429
    assert nothing_written()


def test_a_match_sent_again_is_found_before_any_replay_and_costs_nothing(client, ana, budget, monkeypatch):
    budget.PRACTICE_UPLOAD_BURST = 1
    client.force_login(ana)
    first = post(client, upload())
    assert first.status_code == 201
    replays = []
    monkeypatch.setattr(services, "replay", lambda *args: replays.append(args))
    again = post(client, {**upload(), "bundle": "a-later-bundle", "started_at": "2026-11-30T20:01:00+00:00"})
    assert (again.status_code, again.json()) == (200, first.json())
    assert replays == []  # and the budget, spent by the first, did not refuse it
    assert post(client, upload(2)).status_code == 429


def a_changed_seed(seed: int) -> dict:
    return {**upload(seed), "seed": seed + 1000}


def test_an_upload_that_does_not_replay_costs_more_than_one_that_does(client, ana, ion, budget):
    budget.PRACTICE_UPLOAD_BURST = 6
    client.force_login(ion)
    assert [post(client, upload(seed)).status_code for seed in (1, 2)] == [201, 201]  # a step each
    client.force_login(ana)
    forged = post(client, a_changed_seed(1))
    assert forged.status_code == 400 and "does not replay" in forged.json()["error"]
    assert post(client, upload(2)).status_code == 429  # its step and five more: six, all there were
    # In debt (sending what could not be paid costs a step): refused unread, garbage and all.
    unread = client.post(SAVE, "{not json", content_type="application/json")
    assert unread.status_code == 429
    assert Match.objects.filter(table__host=ana).count() == 0


def test_malformed_uploads_are_paid_for_too(client, ana, budget):
    budget.PRACTICE_UPLOAD_BURST = 5
    client.force_login(ana)
    assert client.post(SAVE, "{not json", content_type="application/json").status_code == 400
    assert post(client, upload()).status_code == 429


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000,  # Python's parser gives up: RecursionError
        json.dumps(upload()).replace('"game": "classic"', f'"game": {nested(2_000)}'),
        json.dumps(upload()).replace('"actions": [', f'"actions": [{nested(2_000)}, '),
    ],
    ids=["deeper than the parser goes", "a game nested deep", "a move nested deep"],
)
def test_an_upload_nested_deep_is_a_400_that_says_so(client, ana, body):
    client.force_login(ana)
    response = client.post(SAVE, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {
        "error": "The upload is nested too deep: a practice match is an object, "
        "with a list of moves, each an object."
    }
    assert nothing_written()


@pytest.mark.parametrize(
    "change",
    [
        lambda u: u.update(game="x" * 900_000),
        lambda u: u["options"].update(match="x" * 900_000),
        lambda u: u["actions"].insert(3, {"type": "x" * 900_000}),
        lambda u: u["actions"].insert(3, "x" * 900_000),
    ],
    ids=["game", "an option", "a move's type", "a move"],
)
def test_a_refusal_never_echoes_a_megabyte_back(client, ana, change):
    hostile = upload()
    change(hostile)
    client.force_login(ana)
    response = post(client, hostile)
    assert response.status_code == 400 and len(response.content) < 1000
    assert nothing_written()


@pytest.mark.parametrize(
    "started_at",
    [
        "0001-01-01T00:00:00+23:59",  # before year 1 in UTC: stored, it broke the match's page
        (datetime.now(UTC) - timedelta(days=800)).isoformat(),
    ],
    ids=["before year 1", "two years ago"],
)
def test_a_match_from_another_age_is_refused(client, ana, started_at):
    client.force_login(ana)
    response = post(client, {**upload(), "started_at": started_at})
    assert response.status_code == 400
    assert "Start and end" in response.json()["error"] or "days of its start" in response.json()["error"]
    assert nothing_written()


def test_a_person_keeps_at_most_so_many_practice_matches(client, ana, ion, settings):
    settings.PRACTICE_MATCHES_KEPT = 2
    client.force_login(ana)
    assert [post(client, upload(seed)).status_code for seed in (1, 2)] == [201, 201]
    full = post(client, upload(3))
    assert full.status_code == 400
    assert full.json()["error"] == (
        "Your history already keeps 2 practice matches, the most it keeps for one person, so this one "
        "is not saved. It stays on this device, in the list of practice matches below."
    )
    assert post(client, upload(1)).status_code == 200  # one kept is still found
    assert Match.objects.count() == 2
    client.force_login(ion)
    assert post(client, upload(3)).status_code == 201


PATHS = [
    ("game",),
    ("options",),
    ("options", "players"),
    ("options", "match"),
    ("seed",),
    ("seat",),
    ("bots",),
    ("bots", 0),
    ("actions",),
    ("actions", 0),
    ("actions", -1),
    ("actions", 5, "type"),
    ("actions", 5, "card"),
    ("started_at",),
    ("finished_at",),
    ("bundle",),
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(
        ["x" * 100_000, "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "7H", "draw"]
    ),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@hypothesis_settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=st.sampled_from(PATHS), value=JSON_VALUES)
def test_any_value_anywhere_in_an_upload_never_answers_5xx_nor_a_long_refusal(
    client, ana, settings, path, value
):
    settings.PRACTICE_UPLOAD_BURST = 10**9  # the budgets are not what this tests
    settings.PRACTICE_UPLOAD_ADDRESS_BURST = 10**9
    settings.PRACTICE_REFUSED_UPLOAD_STEPS = 0
    hostile = upload()
    *parents, last = path
    target = hostile
    for key in parents:
        target = target[key]
    target[last] = value
    client.force_login(ana)
    response = post(client, hostile)
    assert response.status_code in (200, 201, 400), response.content[:300]
    assert len(response.content) < 2000
    Match.objects.all().delete()


def test_accounts_saving_from_one_address_share_its_budget(ana, ion, budget):
    """Fresh accounts are free, an address is not: ion, at ana's address, finds its budget spent."""
    budget.PRACTICE_UPLOAD_ADDRESS_BURST = 3
    budget.PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR = 1
    budget.PRACTICE_UPLOAD_BURST = 10
    same_place = Client(REMOTE_ADDR="203.0.113.5")
    same_place.force_login(ana)
    assert [post(same_place, upload(seed)).status_code for seed in (1, 2, 3)] == [201, 201, 201]
    same_place.force_login(ion)
    assert post(same_place, upload(4)).status_code == 429
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    elsewhere.force_login(ion)
    assert post(elsewhere, upload(4)).status_code == 201
    assert Match.objects.count() == 4
