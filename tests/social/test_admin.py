"""Moderators read the pool, friend requests, blocks and notices in the admin, and change none of them."""

import pytest
from django.contrib.auth.models import Group

from social import services
from social.models import Block
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def moderator_client(client):
    moderator = make_user("mod", is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    client.force_login(moderator)
    return client


def test_a_moderator_reads_blocks_and_requests_but_cannot_write_them(moderator_client):
    ana, ion = make_user("ana"), make_user("ion")
    services.block(user=ana, other=ion)
    services.friend_request_send(sender=ion, recipient=make_user("eva"))
    for name in ("block", "friendrequest", "poolentry", "notice"):
        assert moderator_client.get(f"/admin/social/{name}/").status_code == 200
        assert moderator_client.get(f"/admin/social/{name}/add/").status_code == 403
    block = Block.objects.get()
    page = moderator_client.get(f"/admin/social/block/{block.pk}/change/")
    assert page.status_code == 200 and 'type="submit" value="Save"' not in page.content.decode()
    assert (
        moderator_client.post(f"/admin/social/block/{block.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert Block.objects.exists()
    assert moderator_client.get("/admin/social/friendship/").status_code == 403
