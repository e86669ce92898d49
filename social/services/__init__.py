"""The social layer's writes. Import them from here (``from social import services``); each job has a
module:

- ``pool``: the pairing pool: joining, leaving, the heartbeat of the pages that look, pairing people
  into tables (and bots completing them), the periodic tick, a person sitting down in the lobby
  instead. Its docstring holds the lock order.
- ``friends``: friend requests sent, answered, withdrawn; a friend removed; blocks.
- ``invitations``: a friend invited to a table, the invitation accepted or lapsed; notices put away
  and read.
- ``forgetting``: what privacy asks of the social side: a closed account forgotten, old notices deleted.
- ``shared``, below them all: ``SocialError``, a notice sent, and the budget that friend requests and
  invitations spend from.

Rows: PoolEntry, Friendship, FriendRequest, Block and Notice are written in this package only.
"""

from .forgetting import notices_forget_old, person_forget
from .friends import (
    block,
    friend_remove,
    friend_request_answer,
    friend_request_send,
    friend_request_withdraw,
    unblock,
)
from .invitations import invitation_accept, invitation_send, invitations_lapse, notice_close, notices_read
from .pool import (
    POOL_CASUAL,
    POOL_LENGTHS,
    POOL_PLAYERS,
    POOL_RATED,
    pool_join,
    pool_key,
    pool_leave,
    pool_leave_within,
    pool_left_for_seat,
    pool_opened,
    pool_options,
    pool_pair,
    pool_rated,
    pool_seen,
    pool_side,
    pool_tick,
)
from .shared import SocialError, notify

__all__ = [
    "POOL_CASUAL",
    "POOL_LENGTHS",
    "POOL_PLAYERS",
    "POOL_RATED",
    "SocialError",
    "block",
    "friend_remove",
    "friend_request_answer",
    "friend_request_send",
    "friend_request_withdraw",
    "invitation_accept",
    "invitation_send",
    "invitations_lapse",
    "notice_close",
    "notices_forget_old",
    "notices_read",
    "notify",
    "person_forget",
    "pool_join",
    "pool_key",
    "pool_leave",
    "pool_leave_within",
    "pool_left_for_seat",
    "pool_opened",
    "pool_options",
    "pool_pair",
    "pool_rated",
    "pool_seen",
    "pool_side",
    "pool_tick",
    "unblock",
]
