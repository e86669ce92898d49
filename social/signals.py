"""What the social layer tells the apps above it (the chat), which it does not know."""

from django.dispatch import Signal

block_changed = Signal()
"""A block between two people was made or lifted and has committed; sent with ``user_ids`` (both of
them), so that whatever either reads of the other (the chat) is shown anew at once."""

pool_joining = Signal()
"""A person is joining the pairing pool, inside the join's transaction (their row locked); sent with
``user``. A receiver refuses the join by raising ``SocialError`` (a tournament they are playing in)."""

notice_kept = Signal()
"""A notice for a person was kept and its transaction has committed; sent with ``recipient_id``,
``notice_id`` and ``kind``, so the apps above may tell them away from the site too (notifications)."""
