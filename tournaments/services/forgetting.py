"""What privacy asks of the tournaments when an account is erased: the trophies go with the profile
they showed on; the person's entries stay in the standings others earned their places in, under the
name every page shows for an erased account."""

from ..models import Trophy


def person_forget(*, user_id: int) -> int:
    """Inside the erasure's transaction; how many trophies went."""
    deleted, _by_model = Trophy.objects.filter(user_id=user_id).delete()
    return deleted
