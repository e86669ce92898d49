"""The public API on PostgreSQL and Redis: tokens made on their page (shown once, kept as a digest,
revoked, expired, scoped), the door's budgets with ``Retry-After``, every read and act, and the rules
that sessions never authenticate the API nor tokens the pages."""

import json
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.urls import reverse
from django.utils import timezone

from api import services
from api.models import AccessToken
from gameplay.models import Match
from privacy import services as privacy_services
from privacy.export import person_data
from social import services as social_services
from social.models import PoolEntry
from tables.models import Seat, Table
from tests.factories import make_user
from tests.history.helpers import finished_match, seated_match
from tests.tournaments.conftest import tournament as a_tournament
from tournaments.models import Entry

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_budgets() -> None:
    caches["default"].clear()


def token_for(user, *scopes: str, days: int = 30) -> str:
    return services.token_create(
        owner=user, holder_id=user.pk, name="a program", scopes=list(scopes or ["read"]), days=days
    ).secret


def bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def get(client, path: str, secret: str | None = None, **params):
    return client.get(path, params, **(bearer(secret) if secret else {}))


def lines_of(response) -> list[dict]:
    """The JSON lines of a streamed answer."""

    async def read() -> bytes:
        return b"".join([part async for part in response.streaming_content])

    return [json.loads(line) for line in async_to_sync(read)().splitlines()]


def post(client, path: str, secret: str, body: dict | None = None, **extra):
    return client.post(
        path, json.dumps(body or {}), content_type="application/json", **bearer(secret), **extra
    )


# --- Tokens -------------------------------------------------------------------------------------


def test_a_token_made_on_its_page_is_shown_once_and_kept_only_as_a_digest(client, ana):
    client.force_login(ana)
    page = client.get(reverse("api:tokens"))
    assert page.status_code == 200 and b'data-testid="no-tokens"' in page.content
    made = client.post(
        reverse("api:tokens"),
        {"name": "my bot trainer", "holder": ana.pk, "scopes": ["read", "play"], "days": 90},
        follow=True,
    )
    assert made.redirect_chain == [(reverse("api:tokens"), 302)] and made["Cache-Control"] == "no-store"
    secret = made.context["made"].secret
    assert secret.startswith("sep_") and secret.encode() in made.content
    token = AccessToken.objects.get()
    assert token.digest == services.digest_of(secret) and secret not in json.dumps(
        AccessToken.objects.values().get(), default=str
    )
    assert token.scopes == ["play", "read"] and token.holder == ana
    assert timedelta(days=89) < token.expires_at - timezone.now() <= timedelta(days=90)
    again = client.get(reverse("api:tokens"))
    assert secret.encode() not in again.content and token.prefix.encode() in again.content
    assert get(client, "/api/v1/me", secret).json()["username"] == "ana"


def test_a_revoked_token_is_refused_from_the_next_request(client, ana):
    secret = token_for(ana)
    assert get(client, "/api/v1/me", secret).status_code == 200
    client.force_login(ana)
    token = AccessToken.objects.get()
    assert client.post(reverse("api:token_revoke", args=[token.pk])).status_code == 302
    refused = get(client, "/api/v1/me", secret)
    assert refused.status_code == 401 and refused.json()["detail"] == "This token was revoked."
    assert refused["WWW-Authenticate"].startswith("Bearer")


def test_someone_else_cannot_revoke_a_token(client, ana, ion):
    token_for(ana)
    client.force_login(ion)
    client.post(reverse("api:token_revoke", args=[AccessToken.objects.get().pk]))
    assert AccessToken.objects.get().revoked_at is None


@pytest.mark.parametrize(
    ("change", "status", "reason"),
    [
        ({"expires_at": timezone.now() - timedelta(seconds=1)}, 401, "expired"),
        ({"scopes": ["play"]}, 403, "lacks the read scope"),
    ],
)
def test_an_expired_or_unscoped_token_is_refused_with_why(client, ana, change, status, reason):
    secret = token_for(ana)
    AccessToken.objects.update(**change)
    refused = get(client, "/api/v1/me", secret)
    assert refused.status_code == status and reason in refused.json()["detail"]


def test_a_banned_or_closed_accounts_token_is_refused(client, ana):
    secret = token_for(ana)
    type(ana).objects.filter(pk=ana.pk).update(is_active=False)
    assert get(client, "/api/v1/me", secret).status_code == 401


def test_unknown_or_missing_tokens_are_refused(client, ana):
    assert get(client, "/api/v1/me").status_code == 401
    assert get(client, "/api/v1/me", "sep_not-a-token").json()["detail"] == "This token is unknown."
    assert client.get("/api/v1/me", HTTP_AUTHORIZATION="Basic YW5hOnBhc3M=").status_code == 401


def test_sessions_do_not_authenticate_the_api_and_tokens_do_not_log_into_pages(client, ana):
    client.force_login(ana)
    assert client.get("/api/v1/me").status_code == 401
    secret = token_for(ana)
    client.logout()
    page = client.get(reverse("accounts:profile"), **bearer(secret))
    assert page.status_code == 302 and "/accounts/login/" in page["Location"]


def test_tokens_are_made_within_their_rules(ana, settings):
    with pytest.raises(services.TokenError, match="bot account"):
        services.token_create(owner=ana, holder_id=ana.pk, name="x", scopes=["bot"], days=30)
    with pytest.raises(services.TokenError, match="yourself"):
        services.token_create(owner=ana, holder_id=make_user("ion").pk, name="x", scopes=["read"], days=30)
    with pytest.raises(services.TokenError, match="30, 90 or 365"):
        services.token_create(owner=ana, holder_id=ana.pk, name="x", scopes=["read"], days=1000)
    with pytest.raises(services.TokenError, match="name"):
        services.token_create(owner=ana, holder_id=ana.pk, name="  ", scopes=["read"], days=30)
    settings.API_TOKENS_HELD = 2
    token_for(ana), token_for(ana)
    with pytest.raises(services.TokenError, match="2 live tokens"):
        token_for(ana)
    services.token_revoke(by=ana, token_id=AccessToken.objects.first().pk)
    token_for(ana)


def test_a_days_tokens_are_budgeted(ana, settings):
    settings.API_TOKENS_MADE_PER_DAY = 2
    token_for(ana), token_for(ana)
    with pytest.raises(services.TokenError) as refused:
        token_for(ana)
    assert refused.value.status == 429 and refused.value.wait > 0


# --- The door's budgets -------------------------------------------------------------------------


def test_a_tokens_budget_runs_out_with_retry_after(client, ana, settings):
    settings.API_REQUESTS_PER_MINUTE = 3
    secret = token_for(ana)
    assert [get(client, "/api/v1/me", secret).status_code for _ in range(3)] == [200] * 3
    refused = get(client, "/api/v1/me", secret)
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 21
    other = token_for(ana)
    assert get(client, "/api/v1/me", other).status_code == 200


def test_a_persons_tokens_share_one_budget(client, ana, settings):
    settings.API_PERSON_REQUESTS_PER_MINUTE = 4
    first, second = token_for(ana), token_for(ana)
    assert [get(client, "/api/v1/me", t).status_code for t in (first, second, first, second)] == [200] * 4
    assert get(client, "/api/v1/me", second).status_code == 429


def test_requests_without_a_token_spend_the_addresss_smaller_budget(client, settings):
    settings.API_ANONYMOUS_REQUESTS_PER_MINUTE = 2
    assert [get(client, "/api/v1/tables").status_code for _ in range(2)] == [200, 200]
    refused = get(client, "/api/v1/tables")
    assert refused.status_code == 429 and "token" in refused.json()["detail"]


def test_a_large_body_is_refused_unread_and_a_malformed_one_says_why(client, ana):
    secret = token_for(ana, "play")
    huge = client.post("/api/v1/tables", "x" * 20000, content_type="application/json", **bearer(secret))
    assert huge.status_code == 413
    broken = client.post("/api/v1/tables", "{not json", content_type="application/json", **bearer(secret))
    assert broken.status_code in (400, 422) and "detail" in broken.json()
    wrong = post(client, "/api/v1/tables", secret, {"game": "americana", "turn_clock": "soon"})
    assert wrong.status_code == 422 and wrong.json()["errors"]
    assert not Table.objects.exists()


# --- Reads --------------------------------------------------------------------------------------


def test_me_names_the_account_and_its_ratings(client, ana):
    body = get(client, "/api/v1/me", token_for(ana)).json()
    assert body["username"] == "ana" and body["bot"] is False
    assert {row["game"] for row in body["ratings"]} == {"americana", "classic"}
    assert all(row["rated_matches"] == 0 and not row["established"] for row in body["ratings"])


def test_a_finished_matchs_record_and_who_may_read_it(client, ana, ion):
    public = finished_match("americana", [ana, ion], seed=5)
    private = finished_match("classic", [ana, ion], private=True, seed=6)
    reader = make_user("vlad")
    secret = token_for(reader)
    record = get(client, f"/api/v1/matches/{public.pk}", secret).json()
    assert record["id"] == public.pk and len(record["moves"]) == public.moves.count()
    assert "seed" not in json.dumps(record) and str(public.seed) not in json.dumps(record)
    assert get(client, f"/api/v1/matches/{private.pk}", secret).status_code == 404
    assert get(client, f"/api/v1/matches/{private.pk}", token_for(ana)).json()["game"] == "classic"
    assert get(client, f"/api/v1/matches/{public.pk}").status_code == 401
    playing = seated_match("americana", [make_user("dan")], {"players": 2})
    assert get(client, f"/api/v1/matches/{playing.pk}", secret).status_code == 409


def test_match_records_spend_an_hourly_budget(client, ana, ion, settings):
    settings.API_MATCH_RECORDS_PER_HOUR = 2
    match = finished_match("americana", [ana, ion], seed=5)
    secret = token_for(ana)
    assert [get(client, f"/api/v1/matches/{match.pk}", secret).status_code for _ in range(2)] == [200, 200]
    refused = get(client, f"/api/v1/matches/{match.pk}", secret)
    assert refused.status_code == 429 and "open data" in refused.json()["detail"]


@pytest.mark.django_db(transaction=True)
def test_my_matches_stream_as_json_lines_newest_first_in_pages(client, ana, ion):
    matches = [finished_match("americana", [ana, ion], seed=seed) for seed in (1, 2, 3)]
    finished_match("americana", [make_user("dan"), ion], seed=4)  # not ana's
    secret = token_for(ana)
    response = get(client, "/api/v1/me/matches", secret, max=2)
    assert response.status_code == 200 and response["Content-Type"].startswith("application/jsonl")
    lines = lines_of(response)
    assert [line["id"] for line in lines] == [matches[2].pk, matches[1].pk]
    rest = get(client, "/api/v1/me/matches", secret, max=2, before=lines[-1]["id"])
    assert [line["id"] for line in lines_of(rest)] == [matches[0].pk]


def test_leaderboards_tables_and_tournaments_need_no_token(client, ana, ion):
    board = get(client, "/api/v1/leaderboards/classic").json()
    assert board["game"] == "classic" and board["page"] == 1 and board["players"] == []
    assert get(client, "/api/v1/leaderboards/classic", bots="true").json()["bots"] is True
    assert get(client, "/api/v1/leaderboards/chess").status_code == 404
    waiting = seated_match("americana", [ana], {"players": 3})
    Table.objects.filter(pk=waiting.table_id).update(status=Table.Status.WAITING, is_private=False)
    Match.objects.filter(pk=waiting.pk).delete()
    listed = get(client, "/api/v1/tables").json()
    assert [table["id"] for table in listed] == [waiting.table_id]
    assert [seat["player"] for seat in listed[0]["seats"]] == ["ana", None, None]
    playing = seated_match("classic", [ion], {"players": 2})
    shown = get(client, "/api/v1/tables", status="playing").json()
    assert [table["id"] for table in shown] == [playing.table_id] and shown[0]["seats"][1]["bot"] == "easy"
    assert get(client, "/api/v1/tables", status="over").status_code == 422
    assert get(client, "/api/v1/tournaments").json() == []


# --- Acts ---------------------------------------------------------------------------------------


def test_a_program_makes_a_table_and_the_engine_checks_its_options(client, ana, settings):
    secret = token_for(ana, "play")
    made = post(
        client, "/api/v1/tables", secret, {"game": "classic", "options": {"players": 4}, "private": True}
    )
    assert made.status_code == 201
    table = Table.objects.get(pk=made.json()["id"])
    assert table.host == ana and table.is_private and table.players == 4
    assert Seat.objects.get(table=table, position=0).user == ana
    assert made.json()["invitation_url"].endswith(f"/join/{table.invite_token}/")
    refused = post(client, "/api/v1/tables", secret, {"game": "americana", "options": {"players": 9}})
    assert refused.status_code == 409 and refused.json()["detail"]
    assert post(client, "/api/v1/tables", token_for(ana, "read"), {"game": "classic"}).status_code == 403


def test_tables_made_through_the_api_are_budgeted(client, ana, settings):
    settings.API_TABLES_PER_HOUR = 1
    secret = token_for(ana, "play")
    assert post(client, "/api/v1/tables", secret, {"game": "classic"}).status_code == 201
    Table.objects.update(status=Table.Status.CLOSED)
    assert post(client, "/api/v1/tables", secret, {"game": "classic"}).status_code == 429


@pytest.mark.django_db(transaction=True)
def test_a_program_waits_in_the_pool_is_heard_from_and_leaves(client, ana):
    secret = token_for(ana, "play")
    joined = post(client, "/api/v1/pool", secret, {"game": "americana", "players": 2, "length": 101})
    assert joined.status_code == 200 and joined.json()["waiting"] and joined.json()["table_id"] is None
    PoolEntry.objects.update(seen_at=timezone.now() - timedelta(seconds=8))
    state = get(client, "/api/v1/pool", secret).json()
    assert state["waiting"] and PoolEntry.objects.get().seen_at > timezone.now() - timedelta(seconds=2)
    assert client.delete("/api/v1/pool", **bearer(secret)).json()["waiting"] is False
    assert not PoolEntry.objects.exists()
    bad = post(client, "/api/v1/pool", secret, {"game": "americana", "players": 2, "length": 7})
    assert bad.status_code == 409 and "long" in bad.json()["detail"]


@pytest.mark.django_db(transaction=True)
def test_a_program_accepts_an_invitation_link(client, ana, ion):
    table = Table.objects.get(
        pk=post(client, "/api/v1/tables", token_for(ana, "play"), {"game": "classic"}).json()["id"]
    )
    seated = post(client, f"/api/v1/invitations/{table.invite_token}/accept", token_for(ion, "play"))
    assert seated.status_code == 200 and seated.json()["table_id"] == table.pk
    assert Seat.objects.get(table=table, position=1).user == ion
    assert post(client, "/api/v1/invitations/nope/accept", token_for(ion, "play")).status_code == 409


@pytest.mark.django_db(transaction=True)
def test_a_program_joins_a_tournament_and_withdraws(client, ana):
    tournament = a_tournament(name="Joi seara", starts_in=timedelta(hours=1))
    secret = token_for(ana, "play")
    joined = post(client, f"/api/v1/tournaments/{tournament.pk}/join", secret)
    assert joined.status_code == 200 and Entry.objects.filter(tournament=tournament, user=ana).exists()
    listed = get(client, "/api/v1/tournaments").json()
    assert listed[0]["id"] == tournament.pk and listed[0]["status"] == "upcoming"
    assert post(client, f"/api/v1/tournaments/{tournament.pk}/withdraw", secret).status_code == 200
    assert not Entry.objects.filter(tournament=tournament, user=ana).exists()
    assert post(client, "/api/v1/tournaments/999999/join", secret).status_code == 404


# --- The description and the guide -------------------------------------------------------------


def test_the_openapi_description_and_its_page_are_served_from_the_site(client):
    def no_key_twice(pairs: list) -> dict:
        keys = [key for key, _value in pairs]
        assert len(keys) == len(set(keys)), f"a key twice: {keys}"  # Swagger UI refuses such a description
        return dict(pairs)

    description = json.loads(client.get("/api/v1/openapi.json").content, object_pairs_hook=no_key_twice)
    assert description["info"]["version"] == "1"
    assert {"/api/v1/me", "/api/v1/matches/{match_id}", "/api/v1/pool"} <= set(description["paths"])
    page = client.get("/api/v1/docs")
    assert page.status_code == 200 and b"/static/ninja/swagger-ui-bundle.js" in page.content
    assert b"cdn" not in page.content.lower()


@pytest.mark.parametrize(("language", "words"), [("en", "Tokens"), ("ro", "Chei de acces")])
def test_the_guide_reads_in_both_languages_with_the_sites_limits(client, language, words, settings):
    settings.API_REQUESTS_PER_MINUTE = 77
    page = client.get(reverse("api:guide"), HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200 and words in page.content.decode() and "77" in page.content.decode()


# --- Moderators and a person's data -------------------------------------------------------------


def test_a_moderator_revokes_anothers_token_but_never_sees_their_own(mod_client, ana):
    moderator = get_user_model().objects.get(pk=mod_client.session["_auth_user_id"])
    theirs = services.token_create(owner=ana, holder_id=ana.pk, name="scraper", scopes=["read"], days=30)
    own = services.token_create(
        owner=moderator, holder_id=moderator.pk, name="mine", scopes=["read"], days=30
    )
    listed = mod_client.get(reverse("admin:api_accesstoken_changelist"))
    assert listed.status_code == 200 and "scraper" in listed.text and "mine" not in listed.text
    assert theirs.secret not in listed.text and theirs.token.digest not in listed.text
    for token in (theirs.token, own.token):
        mod_client.post(
            reverse("admin:api_accesstoken_changelist"),
            {"action": "revoke", "_selected_action": [token.pk]},
        )
    assert AccessToken.objects.get(pk=theirs.token.pk).revoked_at is not None
    assert AccessToken.objects.get(pk=own.token.pk).revoked_at is None
    with pytest.raises(services.TokenError, match="own"):
        services.token_revoke_as_moderator(moderator=moderator, token_id=own.token.pk)


def test_a_persons_tokens_are_in_their_data_and_go_with_their_account(ana):
    made = services.token_create(owner=ana, holder_id=ana.pk, name="laptop", scopes=["read"], days=30)
    (listed,) = person_data(ana)["access_tokens"]
    assert listed["name"] == "laptop" and listed["starts_with"] == made.token.prefix
    assert made.secret not in json.dumps(person_data(ana), default=str)
    privacy_services.account_erase(user=ana)
    assert not AccessToken.objects.exists()


def test_a_bot_accounts_seat_is_marked_in_a_match_record(client, ana):
    robot = make_user("robo", is_bot_account=True, bot_owner=ana, password="!")
    match = finished_match("classic", [ana, robot], seed=2)
    seats = get(client, f"/api/v1/matches/{match.pk}", token_for(ana)).json()["seats"]
    assert [(seat["name"], seat["bot_account"]) for seat in seats] == [("ana", False), ("robo", True)]


@pytest.mark.django_db(transaction=True)
def test_a_program_befriends_reads_its_invitations_and_accepts_one(client, ana, ion):
    social_services.friend_request_send(sender=ana, recipient=ion)
    (asked,) = get(client, "/api/v1/me/friend-requests", token_for(ion)).json()
    assert asked["sender_id"] == ana.pk and asked["sender"] == "ana"
    answered = post(client, f"/api/v1/friend-requests/{ana.pk}", token_for(ion, "play"), {"accept": True})
    assert answered.json() == {"sender_id": ana.pk, "friends": True}
    assert get(client, "/api/v1/me/friend-requests", token_for(ion)).json() == []
    table_id = post(client, "/api/v1/tables", token_for(ana, "play"), {"game": "classic"}).json()["id"]
    social_services.invitation_send(by=ana, table_id=table_id, friend_id=ion.pk)
    (invitation,) = get(client, "/api/v1/me/invitations", token_for(ion)).json()
    assert invitation["sender"] == "ana" and invitation["table_id"] == table_id
    seated = post(client, f"/api/v1/notices/{invitation['id']}/accept", token_for(ion, "play"))
    assert seated.status_code == 200 and Seat.objects.get(table_id=table_id, position=1).user == ion
    assert get(client, "/api/v1/me/invitations", token_for(ion)).json() == []
    again = post(client, "/api/v1/notices/999999/accept", token_for(ion, "play"))
    assert again.status_code == 409 and again.json()["detail"] == "There is no such invitation."


def test_a_tournament_reads_alone_and_a_private_one_stays_hidden(client, ana):
    shown = a_tournament(name="Duminica")
    hidden = a_tournament(name="Între noi", is_private=True, created_by=ana)
    assert get(client, f"/api/v1/tournaments/{shown.pk}").json()["name"] == "Duminica"
    assert get(client, f"/api/v1/tournaments/{hidden.pk}").status_code == 404
    assert get(client, f"/api/v1/tournaments/{hidden.pk}", token_for(ana)).json()["name"] == "Între noi"
