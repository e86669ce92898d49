"""Moderators read the pool, friend requests, blocks and notices in the admin, and change none of them."""

import pytest

from social import services
from social.models import Block
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_a_moderator_reads_blocks_and_requests_but_cannot_write_them(mod_client):
    ana, ion = make_user("ana"), make_user("ion")
    services.block(user=ana, other=ion)
    services.friend_request_send(sender=ion, recipient=make_user("eva"))
    for name in ("block", "friendrequest", "poolentry", "notice"):
        assert mod_client.get(f"/admin/social/{name}/").status_code == 200
        assert mod_client.get(f"/admin/social/{name}/add/").status_code == 403
    block = Block.objects.get()
    page = mod_client.get(f"/admin/social/block/{block.pk}/change/")
    assert page.status_code == 200 and 'type="submit" value="Save"' not in page.content.decode()
    assert mod_client.post(f"/admin/social/block/{block.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Block.objects.exists()
    assert mod_client.get("/admin/social/friendship/").status_code == 403
