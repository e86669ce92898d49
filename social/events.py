"""What the social layer tells a person's open pages, once the transaction commits: ids only (the
messages cross Redis); each page reads and renders what it needs in its own language."""

from tables.events import send_on_commit


def person_group(user_id: int) -> str:
    return f"person.{user_id}"


def notice_new(user_id: int, notice_id: int) -> None:
    send_on_commit(person_group(user_id), {"type": "notice.new", "user": user_id, "notice": notice_id})


def pool_paired(user_id: int, table_id: int) -> None:
    """The pool made a table for this person: every page of theirs that looks opens it."""
    send_on_commit(person_group(user_id), {"type": "pool.paired", "user": user_id, "table": table_id})


def pace_turns(user_id: int) -> None:
    """The matches at own pace waiting for this person's move changed: their pages count them again."""
    send_on_commit(person_group(user_id), {"type": "pace.turns", "user": user_id})
