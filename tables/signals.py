"""What a table tells the apps above it, which it does not know (one direction: tables ← gameplay)."""

from django.dispatch import Signal

table_filled = Signal()
"""Every seat of ``table`` now holds a person or a bot and the table is playing: deal its match.
Sent inside the transaction that filled the last seat, holding the table's lock."""

person_sitting = Signal()
"""``user`` is taking a seat at ``table`` in the lobby (a free seat, an invitation, a rematch), inside
that transaction, holding the table's lock and the person's own row (for no key update): the apps
above drop whatever else would seat them meanwhile (the pairing pool's entry), or refuse the seat with
``tables.services.TableError`` when it already has (the pool seated them a moment ago)."""

seat_notes = Signal()
"""Asked with ``tables`` (a list, their seats fetched) when a list of tables is shown: each receiver
answers ``{(table id, person id): short text}`` to show beside a seated person's name (the ratings
app answers with their rating in the table's game)."""
