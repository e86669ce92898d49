"""The ratings' catch-up on a real Celery worker, Redis and PostgreSQL."""

import pytest

from ratings.models import RatedMatch
from ratings.tasks import catch_up
from tests.factories import make_user
from tests.gameplay.helpers import wait_until
from tests.history.helpers import play_out
from tests.ratings.helpers import rated_table_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_worker_rates_a_decided_match_whose_update_was_missed(celery_worker):
    ana, ion = make_user("ana"), make_user("ion")
    # The live update runs as the last move commits; what it made is undone, as if its process had
    # died between the move's commit and the update.
    match = play_out(rated_table_match("classic", [ana, ion], {"match": "points8"}))
    RatedMatch.objects.filter(match=match).delete()
    match.rating_changes.all().delete()
    catch_up.delay()
    assert wait_until(lambda: RatedMatch.objects.filter(match=match).exists(), timeout=120)
    assert match.rating_changes.count() == 2
