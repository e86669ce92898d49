"""What the chat tells the apps above it (notifications), which it does not know."""

from django.dispatch import Signal

person_warned = Signal()
"""A moderator's warning to a person has committed; sent with ``user_id`` and ``action_id`` (the
moderation record, whose reason is the moderator's words), so they may be told away from the site."""
