"""Bot accounts, the accounts side: a person registers them on their profile (by the registration's name
rules, within a cap and a daily budget), they never log in to the pages, their owner lists and closes
them, closing the owner's account closes them too, and the owner's data download lists them.
PostgreSQL and Redis."""

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts import services
from accounts.models import User
from privacy import services as privacy_services
from privacy.export import person_data
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

REGISTER = reverse("accounts:bot_account_register")


@pytest.fixture(autouse=True)
def full_budgets():
    """Budgets are kept in Redis by account id, and ids come again in each test's database."""
    cache.clear()
    yield
    cache.clear()


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def register_bot(owner: User, name: str, description: str = "plays the lowest card", **fields) -> User:
    return services.bot_account_register(owner=owner, username=name, description=description, **fields)


def test_a_person_with_a_confirmed_email_registers_a_bot_account_on_their_profile(ana):
    client = logged_in(ana)
    page = client.get(reverse("accounts:profile")).text
    assert "Register a bot account" in page
    response = client.post(REGISTER, {"username": "Robo_7", "bot_description": "A careful player."})
    assert response.status_code == 302
    bot = User.objects.get(username="Robo_7")
    assert bot.is_bot_account and bot.bot_owner == ana and bot.bot_description == "A careful player."
    assert not bot.has_usable_password() and bot.email == "" and bot.is_active
    page = client.get(reverse("accounts:profile")).text
    assert 'data-testid="bot-account"' in page and "Robo_7" in page and "A careful player." in page


def test_the_name_follows_the_registration_s_rules(ana):
    client = logged_in(ana)
    make_user("taken")
    for name, refusal in [
        ("TAKEN", "That username is taken"),
        ("two words", "Enter a valid username"),
        ("", "This field is required"),
    ]:
        response = client.post(REGISTER, {"username": name, "bot_description": ""})
        assert response.status_code == 400 and refusal in response.text, name
    register_bot(ana, "closing")
    privacy_services.bot_account_close(owner=ana, bot_id=User.objects.get(username="closing").pk)
    response = client.post(REGISTER, {"username": "Closing", "bot_description": ""})
    assert "That username is taken" in response.text, "a closed bot account's name is reserved for a while"
    assert User.objects.filter(is_bot_account=True, erased_at__isnull=True).count() == 0


def test_only_a_person_with_a_confirmed_email_may_register_one(ana):
    newcomer = make_user("newcomer", fresh=True)
    with pytest.raises(services.AccountRefused, match="Confirm your email address first"):
        register_bot(newcomer, "newbot")
    assert "Confirm your email address first" in logged_in(newcomer).get(reverse("accounts:profile")).text
    bot = register_bot(ana, "firstbot")
    with pytest.raises(services.AccountRefused, match="A bot account cannot register bot accounts"):
        register_bot(bot, "grandchild")
    assert not User.objects.filter(username__in=["newbot", "grandchild"]).exists()


def test_a_person_runs_at_most_their_cap_of_bot_accounts_and_a_closed_one_frees_a_place(ana, settings):
    settings.BOT_ACCOUNTS_PER_PERSON = 2
    settings.BOT_REGISTRATIONS_PER_DAY = 10
    first = register_bot(ana, "bot1")
    register_bot(ana, "bot2")
    with pytest.raises(services.AccountRefused, match="You already run 2 bot accounts"):
        register_bot(ana, "bot3")
    services.user_ban(user=first, by=make_user("root", is_superuser=True, is_staff=True))
    with pytest.raises(services.AccountRefused, match="You already run 2"):
        register_bot(ana, "bot3")  # a banned bot account still counts
    privacy_services.bot_account_close(owner=ana, bot_id=first.pk)
    assert register_bot(ana, "bot3").username == "bot3"


def test_registrations_spend_a_daily_budget_of_the_person_and_of_their_address(ana, ion, settings):
    settings.BOT_REGISTRATIONS_PER_DAY = 2
    settings.BOT_REGISTRATIONS_PER_ADDRESS_PER_DAY = 3
    register_bot(ana, "a1", address="10.0.0.1")
    register_bot(ana, "a2", address="10.0.0.1")
    with pytest.raises(services.AccountRefused, match="as many bot accounts as a day allows"):
        register_bot(ana, "a3", address="10.0.0.2")
    register_bot(ion, "i1", address="10.0.0.1")
    with pytest.raises(services.AccountRefused, match="from your network today"):
        register_bot(ion, "i2", address="10.0.0.1")
    response = logged_in(ana).post(REGISTER, {"username": "a4", "bot_description": ""}, follow=True)
    assert "as many bot accounts as a day allows" in response.text
    assert sorted(User.objects.filter(is_bot_account=True).values_list("username", flat=True)) == [
        "a1",
        "a2",
        "i1",
    ]


def test_a_bot_account_cannot_log_in_to_the_pages(client, ana):
    register_bot(ana, "Robo")
    response = client.post(reverse("accounts:login"), {"username": "robo", "password": PASSWORD})
    assert response.status_code == 200
    assert "robo is a bot account: it plays through the API only and cannot log in here." in response.text
    assert "_auth_user_id" not in client.session
    # A person logs in as ever.
    response = client.post(reverse("accounts:login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 302 and client.session["_auth_user_id"] == str(ana.pk)


def test_the_owner_closes_a_bot_account_and_nobody_else_can(ana, ion):
    bot = register_bot(ana, "Closer")
    response = logged_in(ion).post(reverse("privacy:bot_account_close", args=[bot.pk]), follow=True)
    assert "That is not one of your bot accounts." in response.text
    bot.refresh_from_db()
    assert bot.erased_at is None
    response = logged_in(ana).post(reverse("privacy:bot_account_close", args=[bot.pk]), follow=True)
    assert "The bot account is closed." in response.text
    bot.refresh_from_db()
    assert bot.erased_at is not None and not bot.is_active and bot.public_name == "a deleted player"
    assert bot.bot_owner == ana, "the closed account still records whose it was"
    assert 'data-testid="bot-account"' not in response.text


def test_closing_the_owner_s_account_closes_their_bot_accounts(ana):
    bots = [register_bot(ana, "keep1"), register_bot(ana, "keep2")]
    other = register_bot(make_user("eva"), "evabot")
    privacy_services.account_close(user=ana, password=PASSWORD)
    for bot in bots:
        bot.refresh_from_db()
        assert bot.erased_at is not None and not bot.is_active
    other.refresh_from_db()
    assert other.erased_at is None and other.is_active


def test_the_owner_s_data_download_lists_their_bot_accounts(ana):
    register_bot(ana, "listed", description="Counts trumps.")
    closed = register_bot(ana, "gone")
    privacy_services.bot_account_close(owner=ana, bot_id=closed.pk)
    rows = person_data(ana)["bot_accounts"]
    assert [(row["username"], row["description"], row["closed"] is None) for row in rows] == [
        ("listed", "Counts trumps.", True),
        (None, "plays the lowest card", False),
    ]
    assert person_data(make_user("eva"))["bot_accounts"] == []


def test_the_admin_tells_bot_accounts_and_their_owners(ana):
    register_bot(ana, "adminbot")
    root = make_user("root", is_superuser=True, is_staff=True)
    page = logged_in(root).get(reverse("admin:accounts_user_changelist") + "?is_bot_account__exact=1").text
    assert "adminbot" in page and "root" not in page.split("<tbody>")[1]


def test_banning_the_owner_bans_their_bot_accounts_and_reinstating_them_leaves_those_banned(ana):
    bot = register_bot(ana, "banned_with")
    root = make_user("root", is_superuser=True, is_staff=True)
    assert services.user_ban(user=ana, by=root)
    bot.refresh_from_db()
    assert not bot.is_active
    assert services.user_reinstate(user=ana, by=root)
    bot.refresh_from_db()
    assert not bot.is_active, "a moderator reinstates a bot account on its own"
    assert services.user_reinstate(user=bot, by=root)
