"""Odd input never makes the site answer 5xx: every URL pattern, every parameter, every kind of visitor.

The resolver lists the routes; each parameter (in the path, the query string and the posted form) is
filled with odd values: NUL and other control characters, very long text, unicode, negative and huge
numbers, path separators. Each is sent by GET and POST, anonymously, as a player and as an admin.
"""

import copy
import logging
import re
import time
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from accounts.models import User
from api import services as api_services
from config import health
from gameplay import services as gameplay_services
from privacy import services as privacy_services
from social import services as social_services
from social.models import Notice
from tests.factories import make_user
from tests.tournaments.conftest import tournament
from tournaments.models import Tournament

ODD_VALUES = [
    "\x00",
    "a\x00b",
    "\x01\x1f\x7f",
    "x" * 5000,
    "ș" * 300,
    "🂡🃏\u202e\ufeff",
    "-1",
    "0",
    "9" * 30,
    "-" + "9" * 30,
    "1e400",
    "../../etc/passwd",
    "a/b\\c",
    "%00",
    "<script>",
    "' OR 1=1 --",
    " ",
]
QUERY_AND_FORM_FIELDS = (
    "game",
    "result",
    "page",
    "step",
    "position",
    "level",
    "username",
    "password",
    "email",
    "token",
    "next",
    "q",
    "o",
    "p",
    "language",
    "action",
    "_selected_action",
    "understood",
    "confirmed",
    "reason",
)
"""Every query and form field a view of the site (or the admin) reads."""
PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)")


def routes(patterns=None, prefix: str = "") -> Iterator[str]:
    """Every route of the site as a template, e.g. ``tables/<int:table_id>/sit/``."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            yield from routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


ROUTES = sorted(set(routes()))


def url_for(route: str, fill) -> str:
    """The route with each parameter replaced by ``fill(name)`` (URL-quoted) and regex anchors dropped."""
    path = PARAMETER.sub(lambda m: quote(fill(m.group(1) or m.group(2)), safe=""), route)
    return "/" + path.replace("^", "").replace("$", "")


@pytest.fixture
def visitors(transactional_db, settings) -> dict[str, Client]:
    # The odd logins are many: hash their passwords cheaply.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    player = User.objects.create(username="fuzzy", email="fuzzy@example.com")
    admin = User.objects.create(username="fuzzadmin", is_staff=True, is_superuser=True)
    clients = {"anonymous": Client(), "player": Client(), "admin": Client()}
    clients["player"].force_login(player)
    clients["admin"].force_login(admin)
    return clients


@pytest.fixture
def real_values(visitors) -> dict[str, str]:
    """Parameters that name things which exist, so the other fields' odd values reach the views."""
    player = User.objects.get(username="fuzzy")
    table = gameplay_services.table_create(
        host=player, game="americana", options={}, turn_clock=45, is_private=True
    )
    asking = make_user("asking")  # confirmed: an unconfirmed account sends no friend request
    social_services.friend_request_send(sender=asking, recipient=player)
    # /health/ready answers 503 without a worker heard from: these say one was, as on a running site.
    cache.set_many({health.WORKER_HEARD: time.time(), health.SWEEP_RAN: time.time()})
    arena = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-1))
    download = privacy_services.export_request(user=player)
    token = api_services.token_create(
        owner=player, holder_id=player.pk, name="fuzz", scopes=["read"], days=30
    )
    privacy_services.export_build(export_id=download.pk)
    return {
        "export_id": str(download.pk),
        "table_id": str(table.pk),
        "match_id": str(table.pk),
        "tournament_id": str(arena.pk),
        "notice_id": str(Notice.objects.get(recipient=player).pk),
        "bot_id": str(player.pk),
        "token_id": str(token.token.pk),
        "sender_id": str(asking.pk),
        "game": "americana",
        "name": "septica-americana-2026-11.jsonl.zst",
        "token": table.invite_token,
        "username": player.username,
        "object_id": str(player.pk),
        "id": str(player.pk),
        "content_type_id": str(ContentType.objects.get_for_model(User).pk),
        "app_label": "accounts",
        "url": "",
        "uidb64": "MQ",
    }


def answer(client: Client, method: str, url: str, data: dict | None = None) -> int:
    """The status of one request, each its own transaction as on the site (the services are durable:
    never run inside another's); the visitor keeps their cookies (a posted logout stays undone)."""
    cookies = copy.deepcopy(client.cookies)
    response = client.get(url, data) if method == "GET" else client.post(url, data or {})
    client.cookies = cookies
    return response.status_code


def assert_no_server_error(visitors: dict[str, Client], url: str, data: dict | None = None) -> None:
    for who, client in visitors.items():
        for method in ("GET", "POST"):
            try:
                status = answer(client, method, url, data)
            except Exception as error:  # the test client re-raises what would have been a 500
                pytest.fail(f"{method} {url!r} {data!r} as {who} raised {error!r}")
            assert status < 500, f"{method} {url!r} {data!r} as {who} answered {status}"


def test_the_walk_covers_the_routes_with_parameters():
    assert "players/<str:username>/" in ROUTES
    assert "tables/join/<str:token>/" in ROUTES
    assert "tables/<int:table_id>/sit/" in ROUTES
    assert url_for("players/<str:username>/", lambda name: "\x00") == "/players/%00/"


@pytest.mark.parametrize("route", [route for route in ROUTES if PARAMETER.search(route)])
def test_odd_path_parameters_never_answer_5xx(visitors, route):
    for value in ODD_VALUES:
        assert_no_server_error(visitors, url_for(route, lambda name, value=value: value))


@pytest.mark.parametrize("route", ROUTES)
def test_odd_query_and_form_fields_never_answer_5xx(visitors, real_values, route):
    url = url_for(route, lambda name: real_values[name])
    for value in ODD_VALUES:
        assert_no_server_error(visitors, url, dict.fromkeys(QUERY_AND_FORM_FIELDS, value))


@pytest.mark.parametrize("cookie", ["sessionid", "csrftoken", "django_language"])
def test_odd_cookies_never_answer_5xx(visitors, cookie):
    for value in ODD_VALUES:
        for client in visitors.values():
            # A server reads header bytes as latin-1, so that is how unicode in a cookie arrives.
            client.cookies[cookie] = value.encode().decode("latin-1")
        assert_no_server_error(visitors, "/")
        assert_no_server_error(visitors, "/accounts/login/", {"username": "fuzzy", "password": "x"})


def test_a_nul_in_the_path_query_cookies_or_headers_is_a_bad_request(client, db):
    assert client.get("/players/%00/").status_code == 400
    assert client.get("/tables/join/%00/").status_code == 400
    assert client.get("/tables/", {"game": "\x00"}).status_code == 400
    login = {"username": "nobody", "password": "x"}
    assert client.post("/accounts/login/", login, HTTP_USER_AGENT="a\x00b").status_code == 400
    client.cookies["sessionid"] = "abcdefgh\x00ijkl"
    assert client.get("/").status_code == 400


def test_a_nul_is_logged_in_one_line_without_a_traceback(client, db, caplog):
    """A scanner sending NULs must not fill the log with tracebacks: one warning line per request,
    saying where the NUL was, itself escaped."""
    with caplog.at_level(logging.WARNING):
        assert client.get("/players/%00/").status_code == 400
        assert client.get("/", HTTP_USER_AGENT="a\x00b").status_code == 400
    assert [(record.name, record.levelname, record.exc_info) for record in caplog.records] == [
        ("django.request", "WARNING", None),
        ("django.request", "WARNING", None),
    ]
    path, header = (record.getMessage() for record in caplog.records)
    assert path == "Bad request (NUL character in the path.): /players/\\x00/"
    assert header == "Bad request (NUL character in the header USER_AGENT.): /"


@hypothesis_settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(route=st.sampled_from(ROUTES), value=st.text(min_size=1, max_size=300))
def test_any_text_in_any_parameter_never_answers_5xx(visitors, real_values, route, value):
    url = url_for(route, lambda name: value)
    assert_no_server_error(visitors, url, dict.fromkeys(QUERY_AND_FORM_FIELDS, value))
