"""A finished practice match reviewed by the practice runtime (``practice.offline``), as the browser's
worker reviews it: one decision at a time, the same judgement as ``bots.review.review`` for seat 0,
kept as JSON and shown as ``gameplay/_review.html`` in the page's language, with no replay links."""

import json
import random

import pytest

from bots.review import FORMAT, review
from practice import offline
from tests.practice.test_offline_table import new_table, play_out


@pytest.fixture(scope="module")
def finished_record() -> str:
    table = new_table("classic", {"players": 2, "match": "points8"}, ["normal"], seed=5)
    play_out(table, random.Random(3))
    assert table.finished
    return table.record_json()


def test_the_runtime_reviews_a_finished_match_as_the_server_does_and_shows_it(finished_record):
    reviewing = offline.start_review(finished_record)
    assert reviewing.total > 3 and reviewing.done == 0
    told = []
    while not reviewing.finished:
        told.append(reviewing.next())
    assert told == list(range(1, reviewing.total + 1))
    kept = json.loads(reviewing.result_json())
    record = json.loads(finished_record)
    judged = review(record["game"], record["options"], record["seed"], record["actions"], seats=[0])
    assert kept["decisions"] == [each.to_json() for each in judged]
    assert kept["format"] == FORMAT and kept["game"] == "classic" and 0 <= kept["accuracy"] <= 100

    html = offline.review_html(json.dumps(kept), "en")
    assert f"Accuracy {round(kept['accuracy'])}%" in html
    assert 'data-testid="review-plot"' in html and "href=" not in html
    marked = sum(1 for each in kept["decisions"] if each["label"])
    assert html.count('class="review-mark ') == marked
    romanian = offline.review_html(json.dumps(kept), "ro")
    assert "Împărțirea" in romanian  # the hidden table's column, in the page's language


def test_a_review_kept_by_another_version_is_made_again(finished_record):
    kept = json.loads(offline.start_review(finished_record).result_json()) | {"format": FORMAT - 1}
    assert offline.review_html(json.dumps(kept), "en") == ""


def test_only_a_finished_match_that_replays_is_reviewed(finished_record):
    record = json.loads(finished_record)
    with pytest.raises(ValueError, match="finished"):
        offline.start_review(json.dumps(record | {"actions": record["actions"][:-1]}))
    with pytest.raises(ValueError, match="Action 1"):
        offline.start_review(json.dumps(record | {"actions": [{"type": "end"}, *record["actions"]]}))
