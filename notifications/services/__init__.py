"""The notifications' writes. Import them from here (``from notifications import services``); each job
has a module:

- ``deciding``: what happened below (a turn, a missed move, a match's end at its own pace, a notice, a
  moderator's warning) becomes the pushes and emails a person's settings ask for, in the outbox.
- ``sending``: the outbox sent, each entry once: pushes one by one, emails of a kind as one message.
- ``preferences``: the settings page saved, the language kept current, an email's unsubscribe link.
- ``forgetting``: a closed account's subscriptions, settings and outbox deleted; old sent entries too.

Rows: Preference, PushSubscription and Delivery are written in this package only.
"""

from .deciding import match_ended, move_stood_in, notice_decide, notice_kept, turn_began, warning_given
from .forgetting import deliveries_forget_old, person_forget
from .preferences import Throttled, preference_language_set, preference_save, unsubscribe
from .sending import deliveries_due, email_deliver, push_deliver

__all__ = [
    "Throttled",
    "deliveries_due",
    "deliveries_forget_old",
    "email_deliver",
    "match_ended",
    "move_stood_in",
    "notice_decide",
    "notice_kept",
    "person_forget",
    "preference_language_set",
    "preference_save",
    "push_deliver",
    "turn_began",
    "unsubscribe",
    "warning_given",
]
