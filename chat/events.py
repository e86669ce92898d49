"""The chat's news, sent once the transaction commits: a line said or removed goes to the table's
group (carrying the line itself, so no reader reads the database for it), a change to a person's
standing (whom they ignore, a suspension, a warning) to every page of that person."""

from tables.events import USERS_GROUP, send_on_commit, table_group


def said(table_id: int, line: dict) -> None:
    send_on_commit(table_group(table_id), {"type": "chat.said", "table": table_id, "line": line})


def removed(table_id: int, message_id: int, room: str, *, erased: bool = False) -> None:
    """A line taken away by a moderator, or (``erased``) with its author's closed account."""
    message = {"type": "chat.removed", "table": table_id, "message": message_id, "room": str(room)}
    if erased:
        message["erased"] = True
    send_on_commit(table_group(table_id), message)


def settings_changed(table_id: int) -> None:
    send_on_commit(table_group(table_id), {"type": "chat.settings", "table": table_id})


def standing_changed(user_id: int) -> None:
    """The person's pages show the chat anew: whom they ignore, or what a moderator decided."""
    send_on_commit(USERS_GROUP, {"type": "user.chat_standing", "user": user_id})
