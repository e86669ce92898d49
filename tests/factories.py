"""Small builders shared by the tests."""

from accounts.models import User
from gameplay.models import Match, Participant
from tables.models import Seat

PASSWORD = "green-felt-table-42"


def make_user(username: str, **extra) -> User:
    return User.objects.create_user(username, f"{username}@example.com", PASSWORD, **extra)


def record_participants(match: Match) -> list[Participant]:
    """A match's participants as its start records them: whoever holds each of its table's seats now,
    from the first move. For matches a test makes directly; a match that has them is left as it is."""
    if not match.participants.exists():
        Participant.objects.bulk_create(
            Participant(
                match=match,
                seat=seat.position,
                user=seat.user,
                bot_level="" if seat.user_id else seat.bot_level,
                name=seat.user.username if seat.user_id else "",
            )
            for seat in Seat.objects.filter(table_id=match.table_id).select_related("user")
        )
    return list(match.participants.all())
