"""Matches played before participants were recorded get them from their table's seats."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("gameplay", "0002_turn_clock_and_events"), ("tables", "0002_seat_taken_over_at")]
AFTER = [("gameplay", "0003_participants_and_due")]

pytestmark = [pytest.mark.django_db(transaction=True)]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_existing_matches_get_their_seats_as_participants_and_a_due_time():
    apps = migrate(BEFORE)
    User = apps.get_model("accounts", "User")
    Table = apps.get_model("tables", "Table")
    Seat = apps.get_model("tables", "Seat")
    Match = apps.get_model("gameplay", "Match")
    ana = User.objects.create(username="ana")
    table = Table.objects.create(game="classic", options={"players": 2}, host=ana, status="playing")
    Seat.objects.create(table=table, position=0, user=ana)
    Seat.objects.create(table=table, position=1, bot_level="hard")
    match = Match.objects.create(table=table, game="classic", options={}, seed=1, state={})
    try:
        apps = migrate(AFTER)
        Participant = apps.get_model("gameplay", "Participant")
        rows = Participant.objects.filter(match_id=match.pk).order_by("seat")
        assert [(p.seat, p.user_id, p.bot_level, p.name, p.from_move, p.until_move) for p in rows] == [
            (0, ana.pk, "", "ana", 0, None),
            (1, None, "hard", "", 0, None),
        ]
        assert apps.get_model("gameplay", "Match").objects.get(pk=match.pk).due_at is not None
    finally:
        executor = MigrationExecutor(connection)
        migrate(executor.loader.graph.leaf_nodes())  # the schema the rest of the suite expects
