"""What a table tells the apps above it, which it does not know (one direction: tables ← gameplay)."""

from django.dispatch import Signal

table_filled = Signal()
"""Every seat of ``table`` now holds a person or a bot and the table is playing: deal its match.
Sent inside the transaction that filled the last seat, holding the table's lock."""

seat_notes = Signal()
"""Asked with ``tables`` (a list, their seats fetched) when a list of tables is shown: each receiver
answers ``{(table id, person id): short text}`` to show beside a seated person's name (the ratings
app answers with their rating in the table's game)."""
