"""``manage.py reviewbench`` run tiny (one match a level, a few positions a decision): every level
reported with an accuracy and its interval, labels, quantiles, times and the seeds' agreement; and its
candidate labels the review's own at the review's thresholds. What the numbers are is the benchmark's
question, not this test's."""

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command

from bench.management.commands.reviewbench import labels_under
from bots import review

ACCURACY = re.compile(r"^(easy|normal|hard): accuracy (\d+\.\d)% \((\d+\.\d)–(\d+\.\d)%\)$", re.MULTILINE)


def test_a_tiny_reviewbench_reports_every_level(tmp_path) -> None:
    out = StringIO()
    saved = tmp_path / "losses.json"
    call_command(
        "reviewbench",
        game="classic",
        matches=2,
        agreement_matches=1,
        positions=4,
        budget=0.002,
        thresholds=[(1.0, 2.0, 3.0)],
        save=str(saved),
        stdout=out,
    )
    printed = out.getvalue()
    assert printed.startswith("classic, 2 players, 2 matches a level"), printed
    accuracies = ACCURACY.findall(printed)
    assert [level for level, *_ in accuracies] == ["easy", "normal", "hard"], printed
    for _level, mean, low, high in accuracies:
        assert 0 <= float(low) <= float(mean) <= float(high) <= 100
    assert re.search(r"hard > normal > easy: (yes|NO)", printed)
    assert re.search(r"two review seeds give the same label to [\d.]+% of \d+ decisions", printed)
    assert "labels at 0.5/1/2" in printed and "labels at 1/2/3" in printed
    assert re.search(r"a 100-decision match: [\d.]+ s of one core", printed)
    data = json.loads(saved.read_text())
    assert list(data) == ["classic"] and len(data["classic"]) == 3 * 2
    assert sum(match["again"] is not None for match in data["classic"]) == 3, "one a level reviewed twice"


@pytest.mark.parametrize("game_name", ["americana", "classic"])
def test_the_candidate_labels_at_the_review_s_thresholds_are_the_review_s(game_name) -> None:
    limits = review.THRESHOLDS[game_name]
    losses = [
        0.0,
        limits.inaccuracy,
        limits.mistake - 1e-6,
        limits.mistake,
        limits.blunder,
        3 * limits.blunder,
    ]
    assert labels_under(limits, losses) == [review.label_of(game_name, loss) for loss in losses]
