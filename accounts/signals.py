"""What accounts tell the apps above them, which accounts may not import."""

from django.dispatch import Signal

user_banned = Signal()
"""Sent once a ban (or the first step of closing an account) has committed, with ``user_id``: the apps
above take the person off their tables and close their live pages."""
