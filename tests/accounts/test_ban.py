"""The one ban service: the same rules for every admin action that bans, and the news of a ban sent once
it has committed, for the apps above accounts to act on."""

import pytest
from django.contrib.auth.models import Group

from accounts import services
from accounts.signals import user_banned
from tests.factories import make_user


@pytest.fixture
def moderator(db):
    user = make_user("mod", is_staff=True)
    user.groups.add(Group.objects.get(name="Moderators"))
    return user


@pytest.fixture
def boss(db):
    return make_user("boss", is_staff=True, is_superuser=True)


@pytest.fixture
def heard() -> list[int]:
    """The ids ``accounts.signals.user_banned`` has announced, in order."""
    ids: list[int] = []

    def listen(sender, *, user_id: int, **kwargs) -> None:
        ids.append(user_id)

    user_banned.connect(listen, dispatch_uid="tests.accounts.heard")
    yield ids
    user_banned.disconnect(dispatch_uid="tests.accounts.heard")


def test_a_ban_is_announced_once_it_commits_and_only_once(
    moderator, ana, heard, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert services.user_ban(user=ana, by=moderator) is True
        assert services.user_ban(user=ana, by=moderator) is False, "banning the banned changes nothing"
    assert heard == [], "nothing is announced before the ban commits"
    for callback in callbacks:
        callback()
    assert heard == [ana.pk]
    ana.refresh_from_db()
    assert not ana.is_active


def test_nobody_bans_or_reinstates_themselves_not_even_a_superuser(moderator, boss, heard):
    for person in (moderator, boss):
        with pytest.raises(services.BanRefused, match="Nobody decides a case they are part of"):
            services.user_ban(user=person, by=person)
        person.refresh_from_db()
        assert person.is_active
        type(person).objects.filter(pk=person.pk).update(is_active=False)
        with pytest.raises(services.BanRefused, match="Nobody decides a case they are part of"):
            services.user_reinstate(user=person, by=person)
        person.refresh_from_db()
        assert not person.is_active
    assert heard == []


def test_only_a_superuser_bans_or_reinstates_staff(moderator, boss):
    staff = make_user("helper", is_staff=True)
    for target in (staff, boss):
        with pytest.raises(services.BanRefused):
            services.user_ban(user=target, by=moderator)
        target.refresh_from_db()
        assert target.is_active
    assert services.user_ban(user=staff, by=boss) is True
    with pytest.raises(services.BanRefused):
        services.user_reinstate(user=staff, by=moderator)
    staff.refresh_from_db()
    assert not staff.is_active
    assert services.user_reinstate(user=staff, by=boss) is True
    staff.refresh_from_db()
    assert staff.is_active


def test_the_rules_are_read_from_the_account_as_it_is_now(moderator, ana):
    """A moderator's list loaded before the player was made staff does not let them ban the new staff."""
    stale = type(ana).objects.get(pk=ana.pk)
    ana.is_staff = True
    ana.save()
    with pytest.raises(services.BanRefused):
        services.user_ban(user=stale, by=moderator)
    ana.refresh_from_db()
    assert ana.is_active


def test_reinstating_lets_the_player_back_and_announces_nothing(moderator, ana, heard):
    ana.is_active = False
    ana.save()
    assert services.user_reinstate(user=ana, by=moderator) is True
    assert services.user_reinstate(user=ana, by=moderator) is False
    ana.refresh_from_db()
    assert ana.is_active
    assert heard == []
