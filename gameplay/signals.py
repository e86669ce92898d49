"""What gameplay tells the apps above it (ratings), which it does not know: one direction,
gameplay ← ratings."""

from django.dispatch import Signal

match_finished = Signal()
"""A match has been decided and the transaction that decided it has committed; sent with
``match_id``, before the table's news goes out, so a screen showing the end can find what the
receivers made of it. Receivers do their own work in their own transaction."""
