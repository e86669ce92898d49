"""Friends, blocks, invitations and notices on PostgreSQL: what each service writes, what it refuses
and why, and the news it sends after commit."""

import pytest

from gameplay import services as gameplay_services
from social import selectors, services
from social.models import Block, FriendRequest, Friendship, Notice
from tables import services as table_services
from tables.models import Table
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def ana():
    return make_user("ana")


@pytest.fixture
def ion():
    return make_user("ion")


def befriend(a, b) -> None:
    services.friend_request_send(sender=a, recipient=b)
    services.friend_request_answer(user=b, sender_id=a.pk, accept=True)


def test_a_request_accepted_makes_friends_both_ways_and_tells_each_in_turn(
    ana, ion, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as sent:
        said = services.friend_request_send(sender=ana, recipient=ion)
    assert "sent" in said
    assert len(sent) == 2  # the notice's news to ion's pages, and to the apps above, after commit
    assert Notice.objects.get(recipient=ion).kind == Notice.Kind.FRIEND_REQUEST
    assert selectors.unread_count(user=ion) == 1
    services.friend_request_answer(user=ion, sender_id=ana.pk, accept=True)
    assert set(Friendship.objects.values_list("person__username", "friend__username")) == {
        ("ana", "ion"),
        ("ion", "ana"),
    }
    assert not FriendRequest.objects.exists()
    assert Notice.objects.get(recipient=ana).kind == Notice.Kind.FRIEND_ACCEPTED
    assert Notice.objects.get(recipient=ion).closed  # nothing left to answer
    assert [friend.username for friend in selectors.friends_of(user=ana)] == ["ion"]


def test_asking_someone_who_already_asked_is_a_yes(ana, ion):
    services.friend_request_send(sender=ana, recipient=ion)
    assert "now friends" in services.friend_request_send(sender=ion, recipient=ana)
    assert Friendship.objects.count() == 2


def test_a_declined_request_leaves_no_friendship_and_a_second_send_is_not_a_second_request(ana, ion):
    services.friend_request_send(sender=ana, recipient=ion)
    assert "waiting" in services.friend_request_send(sender=ana, recipient=ion)
    assert FriendRequest.objects.count() == 1 and Notice.objects.count() == 1
    services.friend_request_answer(user=ion, sender_id=ana.pk, accept=False)
    assert not Friendship.objects.exists() and not FriendRequest.objects.exists()
    with pytest.raises(services.SocialError, match="no longer waiting"):
        services.friend_request_answer(user=ion, sender_id=ana.pk, accept=True)


def test_nobody_befriends_themselves_or_an_account_that_is_gone(ana):
    with pytest.raises(services.SocialError, match="own friend"):
        services.friend_request_send(sender=ana, recipient=ana)
    with pytest.raises(services.SocialError, match="no such player"):
        services.friend_request_send(sender=ana, recipient=None)
    gone = make_user("gone", is_active=False)
    with pytest.raises(services.SocialError, match="no such player"):
        services.friend_request_send(sender=ana, recipient=gone)


def test_a_block_ends_the_friendship_and_refuses_requests_either_way(ana, ion):
    befriend(ana, ion)
    services.block(user=ana, other=ion)
    assert not Friendship.objects.exists()
    assert Block.objects.filter(blocker=ana, blocked=ion).exists()
    services.friend_request_send(sender=ion, recipient=ana)
    assert not selectors.requests_to(user=ana) and not Notice.objects.filter(recipient=ana, closed=False)
    with pytest.raises(services.SocialError, match="no longer waiting"):
        services.friend_request_answer(user=ana, sender_id=ion.pk, accept=True)
    with pytest.raises(services.SocialError, match="unblock them first"):
        services.friend_request_send(sender=ana, recipient=ion)
    assert not Friendship.objects.exists()


def test_a_request_to_someone_who_blocked_the_sender_reads_as_any_other(ana, ion):
    """The sender is not told of the block: what they read, now and on asking again, and what their
    own page lists, are as for a person who simply has not answered."""
    mara = make_user("mara")
    heard = [services.friend_request_send(sender=ion, recipient=mara) for _ in range(2)]
    services.block(user=ana, other=ion)
    ignored = [services.friend_request_send(sender=ion, recipient=ana) for _ in range(2)]
    assert [said.replace("ana", "mara") for said in ignored] == heard
    assert heard == ["Friend request sent to mara.", "Your request to mara is waiting for an answer."]
    assert [request.recipient.username for request in selectors.requests_from(user=ion)] == ["ana", "mara"]
    assert selectors.relation(user=ion, other_id=ana.pk).request_sent
    assert not selectors.relation(user=ana, other_id=ion.pk).request_received


def test_removing_a_friend_removes_both_directions(ana, ion):
    befriend(ana, ion)
    services.friend_remove(user=ion, friend_id=ana.pk)
    assert not Friendship.objects.exists()


def test_requests_and_invitations_spend_a_budget(ana, settings):
    settings.SOCIAL_REQUESTS_PER_HOUR = 2
    others = [make_user(f"x{index}") for index in range(3)]
    services.friend_request_send(sender=ana, recipient=others[0])
    services.friend_request_send(sender=ana, recipient=others[1])
    with pytest.raises(services.SocialError, match="too many"):
        services.friend_request_send(sender=ana, recipient=others[2])
    assert FriendRequest.objects.count() == 2


def _table(host, players: int = 3) -> Table:
    return gameplay_services.table_create(
        host=host, game="americana", options={"players": players}, turn_clock=45, is_private=True
    )


def test_an_invitation_seats_the_friend_at_a_private_table_and_lapses_when_it_fills(ana, ion):
    befriend(ana, ion)
    eva = make_user("eva")
    befriend(ana, eva)
    table = _table(ana)
    assert "invited" in services.invitation_send(by=ana, table_id=table.pk, friend_id=ion.pk)
    assert "already" in services.invitation_send(by=ana, table_id=table.pk, friend_id=ion.pk)
    services.invitation_send(by=ana, table_id=table.pk, friend_id=eva.pk)
    notice = Notice.objects.get(recipient=ion, kind=Notice.Kind.INVITATION)
    assert services.invitation_accept(user=ion, notice_id=notice.pk) == table.pk
    assert table.seats.filter(user=ion).exists()
    # A third player fills the table: eva's invitation has nothing left to offer.
    table_services.seat_take(table_id=table.pk, user=make_user("third"), token=table.invite_token)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    lapsed = Notice.objects.get(recipient=eva, kind=Notice.Kind.INVITATION)
    assert lapsed.closed
    with pytest.raises(services.SocialError, match="lapsed"):
        services.invitation_accept(user=eva, notice_id=lapsed.pk)
    assert not table.seats.filter(user=eva).exists()


def test_only_the_table_s_players_invite_and_only_their_friends(ana, ion):
    eva = make_user("eva")
    table = _table(ana)
    with pytest.raises(services.SocialError, match="only your friends"):
        services.invitation_send(by=ana, table_id=table.pk, friend_id=ion.pk)
    befriend(eva, ion)
    with pytest.raises(services.SocialError, match="Only the players"):
        services.invitation_send(by=eva, table_id=table.pk, friend_id=ion.pk)
    befriend(ana, ion)
    services.block(user=ion, other=ana)
    with pytest.raises(services.SocialError, match="only your friends"):
        services.invitation_send(by=ana, table_id=table.pk, friend_id=ion.pk)
    assert not Notice.objects.filter(kind=Notice.Kind.INVITATION).exists()


def test_someone_else_s_invitation_cannot_be_used(ana, ion):
    befriend(ana, ion)
    table = _table(ana)
    services.invitation_send(by=ana, table_id=table.pk, friend_id=ion.pk)
    notice = Notice.objects.get(recipient=ion, kind=Notice.Kind.INVITATION)
    eva = make_user("eva")
    with pytest.raises(services.SocialError, match="no such invitation"):
        services.invitation_accept(user=eva, notice_id=notice.pk)
    assert not table.seats.filter(user=eva).exists()


def test_opening_the_bell_marks_the_notices_read(ana, ion):
    services.friend_request_send(sender=ana, recipient=ion)
    assert selectors.unread_count(user=ion) == 1
    services.notices_read(user=ion)
    assert selectors.unread_count(user=ion) == 0
    assert len(selectors.notices_of(user=ion)) == 1


def _invited(host, friend) -> tuple[Table, Notice]:
    befriend(host, friend)
    table = _table(host)
    services.invitation_send(by=host, table_id=table.pk, friend_id=friend.pk)
    return table, Notice.objects.get(recipient=friend, kind=Notice.Kind.INVITATION)


def _stands_up(host, table: Table) -> None:
    table_services.seat_take(table_id=table.pk, user=make_user("keeper"), token=table.invite_token)
    table_services.seat_leave(table_id=table.pk, user=host)  # the keeper now hosts the open table


@pytest.mark.parametrize(
    "undo",
    [
        lambda host, friend, table: services.block(user=host, other=friend),
        lambda host, friend, table: services.block(user=friend, other=host),
        lambda host, friend, table: services.friend_remove(user=host, friend_id=friend.pk),
        lambda host, friend, table: _stands_up(host, table),
    ],
    ids=["the host blocks", "the friend blocks", "unfriended", "the host stands up"],
)
def test_an_invitation_no_longer_seats_anyone_once_it_no_longer_stands(ana, ion, undo):
    table, notice = _invited(ana, ion)
    undo(ana, ion, table)
    Notice.objects.filter(pk=notice.pk).update(closed=False)  # a page still showing its "Join"
    with pytest.raises(services.SocialError, match="no longer stands"):
        services.invitation_accept(user=ion, notice_id=notice.pk)
    assert not table.seats.filter(user=ion).exists()


def test_an_invitation_put_away_no_longer_seats(ana, ion):
    table, notice = _invited(ana, ion)
    services.notice_close(user=ion, notice_id=notice.pk)
    with pytest.raises(services.SocialError, match="no longer stands"):
        services.invitation_accept(user=ion, notice_id=notice.pk)
    assert not table.seats.filter(user=ion).exists()
