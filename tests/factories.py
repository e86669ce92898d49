"""Small builders shared by the tests."""

from accounts.models import User

PASSWORD = "green-felt-table-42"


def make_user(username: str, **extra) -> User:
    return User.objects.create_user(username, f"{username}@example.com", PASSWORD, **extra)
