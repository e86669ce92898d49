import pytest

from tests.factories import make_user
from tests.history.helpers import finished_match


@pytest.fixture
def moderator(db):
    return make_user("mod", is_staff=True, is_superuser=True)


@pytest.fixture
def played(ana, ion):
    """A finished two-player Americana match between ana and ion at a private table."""
    return finished_match("americana", [ana, ion], private=True)
