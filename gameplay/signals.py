"""What gameplay tells the apps above it (ratings), which it does not know: one direction,
gameplay ← ratings."""

from django.dispatch import Signal

match_finished = Signal()
"""A match has been decided and the transaction that decided it has committed; sent with
``match_id``, before the table's news goes out, so a screen showing the end can find what the
receivers made of it. Receivers do their own work in their own transaction."""

pace_turn = Signal()
"""At a table at its own pace a person's turn has begun and the transaction has committed; sent with
``match_id``, ``table_id``, ``seat``, ``user_id``, ``due_at`` (the move's deadline) and ``version``, so
the apps above can tell them (notifications) without gameplay knowing how."""

pace_stood_in = Signal()
"""At a table at its own pace the time for a person's move ran out and a bot played it for them; sent
once that has committed, with ``match_id``, ``table_id``, ``seat``, ``user_id``, ``missed`` (how many of
their moves in this match a bot has played so) and ``for_good`` (the seat is now the bot's for good)."""

pace_turns_changed = Signal()
"""At a table at its own pace the move it waits for changed hands (a turn passed, a bot stood in, the
match ended); sent with ``table_id`` once that has committed, so every seated person's count of the
matches waiting for them can be told again."""
