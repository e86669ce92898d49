"""A line said while a move is under way, on PostgreSQL's real row locks: the chat takes the table's row
before the match's, in the site's order, so the two wait for each other in turn and never deadlock
(a deadlock costs a second's wait and then one of them: a player's line or a player's move)."""

import threading
import time

import pytest
from django.db import connection, transaction

from chat import services
from chat.models import ChatMessage
from chat.phrases import PHRASES
from gameplay.services import LOCK_PLAYING
from tables.models import Table
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.django_db(transaction=True)


def waiting_for_a_row_lock() -> bool:
    """Whether another session of this database waits for a lock (the activity read afresh, not as it
    stood at this transaction's first look)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def test_a_line_said_while_a_move_holds_the_table_waits_and_both_commit():
    match, users = human_match("americana", 2, {"target": 501}, clock=45, prefix="locks")
    outcome: dict = {}

    def say() -> None:
        try:
            services.chat_say(table_id=match.table_id, user=users[1], phrase=next(iter(PHRASES)))
            outcome["said"] = True
        except Exception as error:  # what the line met, for the assertion below
            outcome["error"] = error
        finally:
            connection.close()

    speaker = threading.Thread(target=say)
    with transaction.atomic():
        Table.objects.select_for_update().get(pk=match.table_id)  # a move's first lock: the table's row
        speaker.start()
        deadline = time.monotonic() + 10
        while not waiting_for_a_row_lock():  # the line waits for the move's table row
            assert time.monotonic() < deadline, f"the line did not wait for the move: {outcome}"
            time.sleep(0.02)
        with connection.cursor() as cursor:  # the move's second: the match's row, as a move takes it
            cursor.execute(LOCK_PLAYING, [match.pk, match.pk])
            assert cursor.fetchone() is not None
    speaker.join(timeout=10)

    assert outcome == {"said": True}
    assert ChatMessage.objects.filter(table_id=match.table_id, author=users[1]).count() == 1
