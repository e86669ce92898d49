"""Each row has one writer (DESIGN.md): Table and Seat rows are written in ``tables/services.py`` only;
Match, Move, RoundResult, Participant, SeatChange and Holiday rows in the ``gameplay/services/`` package only;
ratings in ``ratings/services.py``; pool entries, friends, blocks and notices in the
``social/services/`` package; the chat's messages, reports, ignores, suspensions, moderation records and
word list in ``chat/services.py``; tournaments, their entries, tables, scores, trophies, calendar and
moderators' actions in the ``tournaments/services/`` package; reserved names in
``accounts/services.py``; data downloads in ``privacy/services.py``; notification settings, push
subscriptions and the outbox in the ``notifications/services/`` package."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = (
    "accounts",
    "tables",
    "gameplay",
    "bots",
    "history",
    "practice",
    "config",
    "ratings",
    "social",
    "chat",
    "tournaments",
    "privacy",
    "notifications",
)
WRITES = {
    "save",
    "update",
    "create",
    "bulk_create",
    "bulk_update",
    "delete",
    "get_or_create",
    "update_or_create",
}
MODELS = {
    "Table": "tables/services.py",
    "Seat": "tables/services.py",
    "table": "tables/services.py",
    "seat": "tables/services.py",
    "seats": "tables/services.py",
    "Match": "gameplay/services/",
    "Move": "gameplay/services/",
    "RoundResult": "gameplay/services/",
    "Participant": "gameplay/services/",
    "SeatChange": "gameplay/services/",
    "Holiday": "gameplay/services/",
    "Rating": "ratings/services.py",
    "RatedMatch": "ratings/services.py",
    "RatingChange": "ratings/services.py",
    "PoolEntry": "social/services/",
    "Friendship": "social/services/",
    "FriendRequest": "social/services/",
    "Block": "social/services/",
    "Notice": "social/services/",
    "ChatMessage": "chat/services.py",
    "TableChat": "chat/services.py",
    "Ignore": "chat/services.py",
    "Report": "chat/services.py",
    "Suspension": "chat/services.py",
    "ModerationAction": "chat/services.py",
    "BannedWord": "chat/services.py",
    "ReservedName": "accounts/services.py",
    "DataExport": "privacy/services.py",
    "Schedule": "tournaments/services/",
    "Tournament": "tournaments/services/",
    "Entry": "tournaments/services/",
    "Pairing": "tournaments/services/",
    "Score": "tournaments/services/",
    "Trophy": "tournaments/services/",
    "ModeratorAction": "tournaments/services/",
    "Preference": "notifications/services/",
    "PushSubscription": "notifications/services/",
    "Delivery": "notifications/services/",
    "delivery": "notifications/services/",
    "preference": "notifications/services/",
}
"""A write's receiver, by a name along its chain, and the one file (or package, ending in "/") that may
write it."""


def receiver_names(node: ast.expr) -> list[str]:
    """The names along a call's receiver: ``match.table.save`` gives ["match", "table"]."""
    names = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            names.append(node.id)
            return list(reversed(names))
        else:
            return list(reversed(names))


def owns(owner: str, relative: str) -> bool:
    """Whether the file at ``relative`` is ``owner``, or inside it when ``owner`` is a package."""
    return relative.startswith(owner) if owner.endswith("/") else relative == owner


def writes(path: Path) -> list[tuple[int, str, str]]:
    """(line, model, owner) for every write in ``path`` to a row another file owns."""
    found = []
    relative = path.relative_to(ROOT).as_posix()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITES:
            names = receiver_names(node.func.value)
            if "objects" not in names and node.func.attr != "save":
                continue  # a dict's update, a set's, a list's...
            model = next((name for name in reversed(names) if name in MODELS), None)
            if model is not None and not owns(MODELS[model], relative):
                found.append((node.lineno, model, MODELS[model]))
    return found


@pytest.mark.parametrize(
    "path",
    [
        path
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts and "management" not in path.parts
    ],
    ids=lambda path: path.relative_to(ROOT).as_posix(),
)
def test_rows_are_written_by_their_owner_only(path):
    assert writes(path) == []
