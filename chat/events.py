"""The chat's news, sent once the transaction commits: a line said or removed goes to the table's
group (carrying the line itself, so no reader reads the database for it), a change to a person's
standing (whom they ignore, a suspension, a warning) to every page of that person."""

from celery import current_app
from django.conf import settings
from django.core.cache import caches
from django.db import transaction

from tables.events import USERS_GROUP, group_send, send_on_commit, table_group

SETTINGS_ANNOUNCE = "chat.tasks.settings_announce"
SETTINGS_DUE = "chat-settings-due:{table_id}"
"""Set while an announcement of the table's chat settings is queued: later switches wait for it."""
SETTINGS_SHOWN = "chat-settings-shown:{table_id}"
"""Whether "phrases only" was on in the table's last announcement."""
SHOWN_KEPT_SECONDS = 86400


def said(table_id: int, line: dict) -> None:
    send_on_commit(table_group(table_id), {"type": "chat.said", "table": table_id, "line": line})


def removed(table_id: int, message_id: int, room: str, *, erased: bool = False) -> None:
    """A line taken away by a moderator, or (``erased``) with its author's closed account."""
    message = {"type": "chat.removed", "table": table_id, "message": message_id, "room": str(room)}
    if erased:
        message["erased"] = True
    send_on_commit(table_group(table_id), message)


def settings_changed(table_id: int) -> None:
    """A host switched the table's chat settings: once committed, an announcement is queued for
    ``CHAT_SETTINGS_ANNOUNCE_SECONDS`` later, unless one already is. Every page of the table reads
    the settings again on it (five queries each), so a burst of switches costs them one read, not one
    a switch: debounced, rather than sent at once and dropped after, which could leave the pages
    showing a switch that was undone within the burst."""
    transaction.on_commit(lambda: _announce_soon(table_id))


def _announce_soon(table_id: int) -> None:
    wait = settings.CHAT_SETTINGS_ANNOUNCE_SECONDS
    # Kept a minute past the wait: a task lost with its worker holds back the next switch no longer.
    if caches["default"].add(SETTINGS_DUE.format(table_id=table_id), True, timeout=wait + 60):
        current_app.send_task(SETTINGS_ANNOUNCE, args=[table_id], countdown=wait)


def settings_due_taken(table_id: int) -> None:
    caches["default"].delete(SETTINGS_DUE.format(table_id=table_id))


def settings_announced(table_id: int, *, phrases_only: bool) -> bool:
    """Tell the table's pages its chat settings now, unless the last announcement said the same."""
    cache, key = caches["default"], SETTINGS_SHOWN.format(table_id=table_id)
    if cache.get(key) == phrases_only:
        return False
    cache.set(key, phrases_only, timeout=SHOWN_KEPT_SECONDS)
    group_send(table_group(table_id), {"type": "chat.settings", "table": table_id})
    return True


def standing_changed(user_id: int) -> None:
    """The person's pages show the chat anew: whom they ignore, or what a moderator decided."""
    send_on_commit(USERS_GROUP, {"type": "user.chat_standing", "user": user_id})
