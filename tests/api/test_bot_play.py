"""A bot account plays through the API on PostgreSQL and the Redis channel layer: it takes a seat a
host keeps for it, reads its seat's stream (a line after every change, never another seat's cards nor
the stock), and posts moves with the version it saw; stale, out-of-turn and illegal moves are refused
with why, and a token holds a capped number of streams."""

import asyncio
import json
import random

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import caches
from django.test import AsyncClient

from api import services as api_services
from api.v1 import bot as bot_endpoints
from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match
from tables import services as table_services
from tests.factories import make_user
from tests.gameplay.test_consumers import hidden_from, random_move, snapshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def fresh_budgets() -> None:
    caches["default"].clear()


def bot_account(owner, name: str = "robo"):
    return make_user(name, is_bot_account=True, bot_owner=owner, password="!")


def bot_token(owner, bot) -> str:
    return api_services.token_create(
        owner=owner, holder_id=bot.pk, name="engine", scopes=["read", "play", "bot"], days=30
    ).secret


def table_with_bot(game: str = "americana", players: int = 2):
    """A table of ``players`` where a stranger's bot account is offered the last seat."""
    people = [make_user(f"host{index}") for index in range(players - 1)]
    owner = make_user("owner")
    bot = bot_account(owner)
    table = gameplay_services.table_create(
        host=people[0], game=game, options={"players": players}, turn_clock=90, is_private=False
    )
    for person in people[1:]:
        table_services.seat_take(table_id=table.pk, user=person, token=table.invite_token)
    table_services.seat_bot_account(table_id=table.pk, by=people[0], bot_user=bot, position=players - 1)
    return table, bot_token(owner, bot), bot


async def seated_bot():
    """A two-seat classic match begun by a bot account taking the seat a host kept for it: its table,
    the API's client, the match and the bot account's token."""
    table, secret, _bot = await sync_to_async(table_with_bot)("classic", 2)
    api = AsyncClient()
    await api.post(f"/api/v1/bot/offers/{table.pk}/accept", headers=auth(secret))
    return table, api, await Match.objects.aget(table=table), secret


def auth(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


async def next_line(lines) -> dict:
    return json.loads(await asyncio.wait_for(anext(lines), 15))


async def lines_of(client: AsyncClient, match_id: int, secret: str):
    response = await client.get(f"/api/v1/bot/games/{match_id}/stream", headers=auth(secret))
    assert response.status_code == 200 and response["Content-Type"].startswith("application/jsonl")

    async def split():
        buffered = b""
        async for part in response.streaming_content:
            buffered += part
            while b"\n" in buffered:
                line, buffered = buffered.split(b"\n", 1)
                yield line

    return response, split()


async def test_a_bot_account_takes_its_offered_seat_and_plays_a_stream_it_may_see(client):
    table, secret, _bot = await sync_to_async(table_with_bot)("americana", 3)
    api = AsyncClient()
    offers = (await api.get("/api/v1/bot/offers", headers=auth(secret))).json()
    assert [offer["table_id"] for offer in offers] == [table.pk] and offers[0]["host"] == "host0"
    taken = await api.post(f"/api/v1/bot/offers/{table.pk}/accept", headers=auth(secret))
    assert taken.status_code == 200 and taken.json()["seat"] == 2
    match = await Match.objects.aget(table=table)
    (listed,) = (await api.get("/api/v1/bot/games", headers=auth(secret))).json()
    assert listed["match_id"] == match.pk and listed["seat"] == 2
    response, lines = await lines_of(api, match.pk, secret)
    rng = random.Random(4)
    seen = 0
    for step in range(60):
        line = await next_line(lines)
        while line["type"] == "ping":
            line = await next_line(lines)
        state_json, awaiting, _name = await sync_to_async(snapshot)(match.pk)
        fresh = await Match.objects.aget(pk=match.pk)
        assert line["version"] == fresh.version, f"step {step}: the line is the match as it stands"
        shown = json.dumps({key: value for key, value in line.items() if key != "round"})
        for code in hidden_from(state_json, 2, "americana", awaiting):
            assert f'"{code}"' not in shown, f"step {step}: the bot account was shown {code}"
        game = get_game("americana")
        assert line["view"] == json.loads(json.dumps(game.view(game.state_from_json(state_json), 2)))
        seen += 1
        if line["status"] != "playing":
            break
        if line["your_turn"]:
            move = await api.post(
                f"/api/v1/bot/games/{match.pk}/move",
                {"action": rng.choice(line["legal"]), "version": line["version"]},
                content_type="application/json",
                headers=auth(secret),
            )
            assert move.status_code == 200 and move.json()["version"] == line["version"] + 1
        elif not await sync_to_async(random_move)(match.pk, rng):
            break
    assert seen >= 30
    await response.streaming_content.aclose()


async def test_stale_out_of_turn_illegal_and_strangers_moves_are_refused_with_why(client):
    _table, api, match, secret = await seated_bot()
    game = get_game("classic")

    def post(action: dict, version: int):
        return api.post(
            f"/api/v1/bot/games/{match.pk}/move",
            {"action": action, "version": version},
            content_type="application/json",
            headers=auth(secret),
        )

    state = game.state_from_json(match.state)
    if game.to_act(state) != 1:  # the host's turn first: the bot account may not move
        refused = await post(game.action_to_json(game.legal_actions(state)[0]), match.version)
        assert refused.status_code == 409 and refused.json()["detail"]
        await sync_to_async(random_move)(match.pk, random.Random(1))
        match = await Match.objects.aget(pk=match.pk)
        state = game.state_from_json(match.state)
    stale = await post(game.action_to_json(game.legal_actions(state)[0]), match.version - 1)
    assert stale.status_code == 409 and stale.json()["version"] == match.version
    illegal = await post({"type": "play", "card": "ZZ"}, match.version)
    assert illegal.status_code == 409 and illegal.json()["detail"]
    assert (await Match.objects.aget(pk=match.pk)).version == match.version
    person = await sync_to_async(make_user)("person")
    person_token = await sync_to_async(api_services.token_create)(
        owner=person, holder_id=person.pk, name="x", scopes=["read", "play"], days=30
    )
    refused = await api.get(f"/api/v1/bot/games/{match.pk}/stream", headers=auth(person_token.secret))
    assert refused.status_code == 403 and "bot" in refused.json()["detail"]


async def test_a_token_holds_a_capped_number_of_streams(client, settings):
    settings.API_STREAMS_PER_TOKEN = 1
    _table, api, match, secret = await seated_bot()
    _response, lines = await lines_of(api, match.pk, secret)
    assert (await next_line(lines))["type"] == "state"
    second = await api.get(f"/api/v1/bot/games/{match.pk}/stream", headers=auth(secret))
    assert second.status_code == 429 and "streams" in second.json()["detail"]
    reading = asyncio.ensure_future(next_line(lines))
    await asyncio.sleep(0.3)
    reading.cancel()  # the reader goes away while the stream waits for news, as a server cancels it
    with pytest.raises(asyncio.CancelledError):
        await reading
    _third, more = await lines_of(api, match.pk, secret)
    assert (await next_line(more))["type"] == "state"
    await more.aclose()


async def test_the_stream_ends_with_the_match(client):
    table, api, match, secret = await seated_bot()
    _response, lines = await lines_of(api, match.pk, secret)
    assert (await next_line(lines))["status"] == "playing"
    await sync_to_async(gameplay_services.table_close)(table_id=table.pk, reason="Closed by a moderator.")
    last = await next_line(lines)
    assert last["status"] == "aborted"
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(anext(lines), 15)


async def test_a_stream_ends_after_its_time_with_a_line_saying_to_reconnect(client, monkeypatch):
    monkeypatch.setattr(bot_endpoints, "STREAM_SECONDS", 0)
    _table, api, match, secret = await seated_bot()
    _response, lines = await lines_of(api, match.pk, secret)
    assert (await next_line(lines))["type"] == "state"
    assert (await next_line(lines)) == {"type": "reconnect"}
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(anext(lines), 15)
    _again, more = await lines_of(api, match.pk, secret)  # its stream slot was given back
    assert (await next_line(more))["type"] == "state"


async def test_a_bot_account_turns_down_a_seat_kept_for_it(client):
    table, secret, _bot = await sync_to_async(table_with_bot)("classic", 2)
    api = AsyncClient()
    declined = await api.post(f"/api/v1/bot/offers/{table.pk}/decline", headers=auth(secret))
    assert declined.status_code == 200 and declined.json() == {"table_id": table.pk, "seat": None}
    assert (await api.get("/api/v1/bot/offers", headers=auth(secret))).json() == []
    gone = await api.post(f"/api/v1/bot/offers/{table.pk}/accept", headers=auth(secret))
    assert gone.status_code == 404


async def test_a_bot_account_cannot_play_or_read_a_seat_it_does_not_hold(client):
    _table, api, match, _secret = await seated_bot()
    owner = await sync_to_async(make_user)("another_owner")
    stranger = await sync_to_async(bot_account)(owner, "intruder")
    secret = await sync_to_async(bot_token)(owner, stranger)
    move = await api.post(
        f"/api/v1/bot/games/{match.pk}/move",
        {"action": {"type": "play", "card": "7S"}, "version": match.version},
        content_type="application/json",
        headers=auth(secret),
    )
    assert move.status_code == 404
    assert (await api.get(f"/api/v1/bot/games/{match.pk}/stream", headers=auth(secret))).status_code == 404
    assert (await Match.objects.aget(pk=match.pk)).version == match.version
