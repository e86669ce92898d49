"""Close my account: refused without the password; then a bot takes the running seat, the person's
data is erased, others' matches stay whole and replay with "a deleted player", the name stays
reserved. A superuser erases the same way from the admin, on the record. PostgreSQL and Redis."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessLog
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.forms import RegistrationForm
from accounts.models import ReservedName, User
from chat.models import ChatMessage, Ignore
from gameplay.models import Match, Participant
from privacy import services
from privacy.export import person_data
from privacy.models import DataExport
from ratings.models import RatingChange
from social.models import Block, FriendRequest, Friendship, Notice
from tests.factories import PASSWORD, make_user, registration_data
from tests.privacy.conftest import ANA_SAYS, ION_SAYS

CLOSE = reverse("privacy:close")


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def match_page(match: Match, name: str = "match") -> str:
    return reverse(f"history:{name}", args=[match.pk])


def registration(username: str) -> RegistrationForm:
    return RegistrationForm(registration_data(username, email=f"new-{username}@example.com"))


@pytest.mark.django_db(transaction=True)
def test_closing_is_refused_without_the_password_and_nothing_changes(world):
    client = logged_in(world.ana)
    page = client.get(CLOSE)
    assert page.status_code == 200 and "cannot be undone" in page.text
    unticked = client.post(CLOSE, {"password": PASSWORD})
    assert unticked.status_code == 400 and "Tick the box" in unticked.text
    wrong = client.post(CLOSE, {"password": "not-her-password", "understood": "on"})
    assert wrong.status_code == 400 and "not your password" in wrong.text
    world.ana.refresh_from_db()
    assert world.ana.erased_at is None and world.ana.is_active and world.ana.username == "ana"
    assert client.get(reverse("privacy:data")).status_code == 200, "still logged in"
    assert Participant.objects.filter(user=world.ana, name="ana").count() == 3


@pytest.mark.django_db(transaction=True)
def test_guessing_the_password_to_close_an_account_runs_out(world, settings):
    settings.CLOSE_ACCOUNT_ATTEMPTS_PER_HOUR = 3
    client = logged_in(world.ana)
    for _ in range(3):
        assert "not your password" in client.post(CLOSE, {"password": "guess", "understood": "on"}).text
    refused = client.post(CLOSE, {"password": PASSWORD, "understood": "on"})
    assert refused.status_code == 400 and "Too many tries" in refused.text
    world.ana.refresh_from_db()
    assert world.ana.erased_at is None


@pytest.mark.django_db(transaction=True)
def test_closing_erases_the_person_and_leaves_the_others_matches_whole(world):
    phone, laptop = logged_in(world.ana), logged_in(world.ana)
    services.export_request(user=world.ana)
    ana_id = world.ana.pk
    running_moves = world.running.moves_made

    closed = phone.post(CLOSE, {"password": PASSWORD, "understood": "on"}, follow=True)
    assert closed.redirect_chain[-1][0] == reverse("home")
    assert "Your account is closed" in closed.text

    ana = User.objects.get(pk=ana_id)
    assert ana.username == f"~deleted-{ana_id}" and ana.public_name == "a deleted player"
    assert (ana.email, ana.first_name, ana.last_name, ana.last_login) == ("", "", "", None)
    assert not ana.has_usable_password() and not ana.check_password(PASSWORD)
    assert not (ana.is_active or ana.is_staff or ana.is_superuser) and ana.erased_at is not None
    assert not [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(ana_id)]
    assert laptop.get(reverse("privacy:data")).status_code == 302, "logged out on every device"
    assert not AccessLog.objects.filter(username="ana").exists()
    assert not AccessAttempt.objects.filter(username="ana").exists()
    assert not DataExport.objects.filter(user_id=ana_id).exists()

    # the running match went on with a bot in her seat, before her name went
    running = Match.objects.get(pk=world.running.pk)
    assert running.status == Match.Status.PLAYING
    seat = running.table.seats.get(position=0)
    assert seat.user_id is None and seat.bot_level
    held = list(Participant.objects.filter(match=running, seat=0).order_by("from_move"))
    assert [(p.user_id, p.name, p.until_move) for p in held[:1]] == [(ana_id, "", running_moves)]
    assert held[1].is_bot and held[1].from_move == running_moves

    assert set(Participant.objects.filter(user_id=ana_id).values_list("name", flat=True)) == {""}
    assert not ChatMessage.objects.filter(author_id=ana_id).exists()
    assert ChatMessage.objects.filter(author=world.ion, text=ION_SAYS).exists(), "others' lines stay"
    assert not Ignore.objects.filter(ignored_id=ana_id).exists()
    assert not Friendship.objects.filter(friend_id=ana_id).exists()
    assert not Friendship.objects.filter(person_id=ana_id).exists()
    assert not Block.objects.filter(blocker_id=ana_id).exists()
    assert not FriendRequest.objects.filter(recipient_id=ana_id).exists()
    assert not Notice.objects.filter(recipient_id=ana_id).exists()
    assert RatingChange.objects.filter(user_id=ana_id).count() == 1, "the match's rating record stays whole"

    ion = logged_in(world.ion)
    page = ion.get(match_page(world.finished))
    assert page.status_code == 200
    assert "a deleted player" in page.text and ">ana<" not in page.text and ANA_SAYS not in page.text
    assert reverse("history:player", args=["ana"]) not in page.text
    replay = ion.get(match_page(world.finished, "replay"), {"step": 10**6})
    assert replay.status_code == 200 and "a deleted player" in replay.text
    assert replay.context["step"].public["totals"] == world.finished.result["totals"]
    sheet = ion.get(match_page(world.finished, "sheet_csv")).content.decode()
    assert "a deleted player: charged" in sheet and "ana" not in sheet
    mine = ion.get(reverse("history:mine")).text
    assert "a deleted player" in mine
    assert ion.get(reverse("history:player", args=[ana.username])).status_code == 404
    assert ion.get(reverse("history:player", args=["ana"])).status_code == 404

    exported = next(m for m in person_data(world.ion)["matches"] if m["id"] == world.finished.pk)
    assert [seat["name"] for seat in exported["seats"]] == ["a deleted player", "ion"]

    for name in ("ana", "ANA", "Ana"):
        assert "username" in registration(name).errors, "nobody passes for her"
    ReservedName.objects.update(until=timezone.now() - timedelta(seconds=1))
    assert registration("ana").is_valid(), registration("ana").errors
    assert services.account_erase(user=ana) is False, "erasing the erased changes nothing"


@pytest.mark.django_db(transaction=True)
def test_the_closing_page_speaks_romanian(world):
    client = logged_in(world.ana)
    client.cookies["django_language"] = "ro"
    page = client.get(CLOSE, headers={"Accept-Language": "ro"})
    assert "Închide-ți contul" in page.text and "un jucător șters" in page.text


@pytest.fixture
def superuser(db) -> User:
    return make_user("boss", is_staff=True, is_superuser=True)


@pytest.mark.django_db(transaction=True)
def test_a_superuser_erases_an_account_on_request_from_the_admin_on_the_record(world, superuser):
    admin = Client()
    admin.force_login(superuser)
    changelist = reverse("admin:accounts_user_changelist")
    chosen = {"action": "erase", "_selected_action": [world.ana.pk]}
    confirm = admin.post(changelist, chosen)
    assert (
        confirm.status_code == 200
        and "cannot be undone" in confirm.text
        and "ana@example.com" in confirm.text
    )
    world.ana.refresh_from_db()
    assert world.ana.erased_at is None, "nothing happens before the confirmation"
    no_reason = admin.post(changelist, {**chosen, "confirmed": "yes", "reason": " "})
    assert "Say why" in no_reason.text
    done = admin.post(
        changelist, {**chosen, "confirmed": "yes", "reason": "Request by email, ticket 41"}, follow=True
    )
    assert "1 account erased." in done.text
    world.ana.refresh_from_db()
    assert world.ana.erased_at is not None and world.ana.email == ""
    entry = LogEntry.objects.get(object_id=str(world.ana.pk))
    assert (
        entry.user == superuser and entry.change_message == "Erased on request: Request by email, ticket 41"
    )
    assert "ana" not in entry.object_repr


@pytest.mark.django_db(transaction=True)
def test_a_moderator_cannot_erase_an_account(world):
    moderator = make_user("mod", is_staff=True)
    moderator.groups.add(Group.objects.get_or_create(name="Moderators")[0])
    with pytest.raises(services.PrivacyError):
        services.account_erase(user=world.ana, by=moderator)
    world.ana.refresh_from_db()
    assert world.ana.erased_at is None and world.ana.is_active
