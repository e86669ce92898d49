"""Moderators read the pool in the admin and change nothing of it; friendships, friend requests,
blocks and notices are a person's own, which only a superuser reads (read-only too)."""

import pytest

from social import services
from social.models import Block
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_a_moderator_reads_the_pool_and_nothing_of_friends_blocks_or_notices(mod_client):
    ana, ion = make_user("ana"), make_user("ion")
    services.block(user=ana, other=ion)
    services.friend_request_send(sender=ion, recipient=make_user("eva"))
    assert mod_client.get("/admin/social/poolentry/").status_code == 200
    assert mod_client.get("/admin/social/poolentry/add/").status_code == 403
    block = Block.objects.get()
    for path in (
        "/admin/social/block/",
        f"/admin/social/block/{block.pk}/change/",
        "/admin/social/friendrequest/",
        "/admin/social/friendship/",
        "/admin/social/notice/",
    ):
        assert mod_client.get(path).status_code == 403, path


def test_a_superuser_reads_blocks_but_cannot_write_them(client):
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    ana, ion = make_user("ana"), make_user("ion")
    services.block(user=ana, other=ion)
    block = Block.objects.get()
    for name in ("block", "friendrequest", "friendship", "notice", "poolentry"):
        assert client.get(f"/admin/social/{name}/").status_code == 200
        assert client.get(f"/admin/social/{name}/add/").status_code == 403
    page = client.get(f"/admin/social/block/{block.pk}/change/")
    assert page.status_code == 200 and 'type="submit" value="Save"' not in page.content.decode()
    assert client.post(f"/admin/social/block/{block.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Block.objects.exists()
