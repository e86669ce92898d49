"""What the apps below announce, each once its own transaction has committed, handed to a worker to
decide (``tasks.decide``): a move or a notice pays one message to the broker, not the decision's reads.
A notification that cannot be queued (the broker briefly away) is logged and lost, never a move, a notice
or a warning refused."""

import functools
import logging
from collections.abc import Callable

from . import events, services

logger = logging.getLogger(__name__)


def _never_raises(receive: Callable[..., object]) -> Callable[..., None]:
    @functools.wraps(receive)
    def received(*args, **kwargs) -> None:
        try:
            receive(*args, **kwargs)
        except Exception:
            logger.exception("Notifications: %s failed", receive.__name__)

    return received


@_never_raises
def pace_turn(sender, *, match_id: int, table_id: int, seat: int, user_id: int, version: int, **_) -> None:
    events.decide_later(
        "turn_began", match_id=match_id, table_id=table_id, seat=seat, user_id=user_id, version=version
    )


@_never_raises
def pace_stood_in(
    sender, *, match_id: int, table_id: int, seat: int, user_id: int, missed: int, for_good: bool, **_
) -> None:
    events.decide_later(
        "move_stood_in",
        match_id=match_id,
        table_id=table_id,
        seat=seat,
        user_id=user_id,
        missed=missed,
        for_good=for_good,
    )


@_never_raises
def match_finished(sender, *, match_id: int, **_) -> None:
    events.decide_later("match_ended", match_id=match_id)


@_never_raises
def notice_kept(sender, *, notice_id: int, **_) -> None:
    events.decide_later("notice_kept", notice_id=notice_id)


@_never_raises
def person_warned(sender, *, user_id: int, action_id: int, **_) -> None:
    events.decide_later("warning_given", user_id=user_id, action_id=action_id)


@_never_raises
def logged_in(sender, *, request, user, **_) -> None:
    """Write to the person in the language they use the site in (kept current at each login)."""
    language = getattr(request, "LANGUAGE_CODE", None)
    if language:
        services.preference_language_set(user_id=user.pk, language=language)
