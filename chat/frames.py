"""The chat's frames on the table's socket, read and checked whole before anything uses them.

Like the moves, they are htmx's form messages: a JSON object of strings. A frame whose ``type`` is
not one of the chat's is not the chat's (``parse`` answers None, and the table reads it as a move).
"""

import json
import re
from dataclasses import dataclass

MAX_FRAME = 4096
MAX_TYPED = 1000
"""The most a message box may send (the service then refuses anything over 200 characters, with the
count): longer is no one typing."""
KINDS = {"chat", "chat_report", "chat_ignore", "chat_unignore", "chat_phrases_only", "chat_warnings_seen"}
KEY = re.compile(r"[a-z_]{1,16}")
ID = re.compile(r"[0-9]{1,12}")


@dataclass(frozen=True)
class ChatFrame:
    kind: str
    phrase: str = ""
    text: str = ""
    target: int | None = None
    """The message reported or whose author is ignored; the person shown again (``chat_unignore``)."""
    reason: str = ""
    on: bool = False


class Unreadable(Exception):
    """A chat frame with a part that is not what the chat's forms send."""


def _no_constant(name: str) -> None:
    raise ValueError(name)


def _word(frame: dict, name: str, pattern: re.Pattern, *, needed: bool = False) -> str:
    value = frame.get(name, "")
    if type(value) is not str or (value and not pattern.fullmatch(value)) or (needed and not value):
        raise Unreadable(name)
    return value


def parse(text_data: str | None) -> ChatFrame | Unreadable | None:
    """The chat frame a page sent, why it cannot be read, or None when it is not the chat's."""
    if not isinstance(text_data, str) or len(text_data) > MAX_FRAME or '"chat' not in text_data:
        return None
    try:
        frame = json.loads(text_data, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(frame, dict) or type(frame.get("type")) is not str or frame["type"] not in KINDS:
        return None
    kind = frame["type"]
    try:
        if kind == "chat":
            text = frame.get("text", "")
            if type(text) is not str or len(text) > MAX_TYPED:
                raise Unreadable("text")
            phrase = _word(frame, "phrase", KEY)
            return ChatFrame(kind=kind, phrase=phrase, text="" if phrase else text)
        if kind in ("chat_report", "chat_ignore", "chat_unignore"):
            target = int(_word(frame, "target", ID, needed=True))
            return ChatFrame(kind=kind, target=target, reason=_word(frame, "reason", KEY))
        if kind == "chat_phrases_only":
            return ChatFrame(kind=kind, on=_word(frame, "on", re.compile("[01]"), needed=True) == "1")
        return ChatFrame(kind=kind)
    except Unreadable as unreadable:
        return unreadable
