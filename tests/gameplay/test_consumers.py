"""The table's websocket over the Redis channel layer: each seat sees its own hand, and nothing hidden."""

import asyncio
import json
import random
import re
from unittest import mock

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from autobahn.exception import Disconnected
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.db.backends.utils import CursorWrapper
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.asyncio import Redis

from bench.management.commands.loadbench import hand_shown
from config.asgi import application
from gameplay import presence, services
from gameplay.consumers import TABLE_NEWS, echo_key
from gameplay.engine import get_game
from gameplay.frames import Frame, parse_frame
from gameplay.games.words import card_name
from gameplay.models import Match, Move
from gameplay.shared_tables import SHARED_TABLES
from tables import events
from tables import services as table_services
from tables.consumers import LOBBY_NEWS, TOO_MANY_FRAMES, TRY_AGAIN_LATER
from tables.events import USERS_GROUP, table_group
from tables.fragments import FORBIDDEN
from tables.models import Table
from tests.channels import communicator as table_communicator
from tests.channels import open_socket as open_table_socket
from tests.channels import session_headers
from tests.factories import make_user
from tests.gameplay.helpers import human_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def open_socket(table_id: int, user) -> WebsocketCommunicator:
    return await open_table_socket(f"/ws/tables/{table_id}/", user)


def without_log(frame: str) -> str:
    """The frame less its log: the log retells public plays, and a card played long ago
    may since have been shuffled back into the stock or drawn into a hand."""
    return re.sub(r'<ol id="log".*?</ol>', "", frame, flags=re.S)


def mentions(frame: str, code: str) -> bool:
    """Whether a frame shows a card, by its code or by its spoken name."""
    with translation.override("en"):
        spoken = card_name(code)
    return bool(re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", frame)) or spoken in frame


def hidden_from(state_json: dict, seat: int | None, game_name: str, awaiting: bool) -> set[str]:
    """Card codes a seat must not see now: other hands (unless laid open at a round's end) and the stock."""
    hidden = set(state_json["stock"])
    if not awaiting:
        for index, hand in enumerate(state_json["hands"]):
            if index != seat:
                hidden.update(hand)
    return hidden


def random_move(match_id: int, rng: random.Random) -> bool:
    match = Match.objects.get(pk=match_id)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if game.is_over(state):
        return False
    if game.awaiting_deal(state):
        services.round_deal_next(match_id=match_id, expected_version=match.version)
        return True
    action = rng.choice([game.action_to_json(a) for a in game.legal_actions(state)])
    services.act(match_id=match_id, seat=game.to_act(state), action=action, expected_version=match.version)
    return True


def snapshot(match_id: int) -> tuple[dict, bool, str]:
    match = Match.objects.get(pk=match_id)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    return match.state, game.awaiting_deal(state) or game.is_over(state), match.game


@pytest.mark.parametrize(("game_name", "players"), [("americana", 3), ("classic", 2), ("classic", 4)])
async def test_no_frame_ever_shows_a_seat_another_hand_or_the_stock(game_name, players):
    match, users = await sync_to_async(human_match)(game_name, players)
    sockets = [await open_socket(match.table_id, user) for user in users]
    await sync_to_async(Table.objects.filter(pk=match.table_id).update)(is_private=False, turn_clock=90)
    spectator = await open_socket(match.table_id, await sync_to_async(make_user)("watcher"))
    watchers = [*enumerate(sockets), (None, spectator)]
    rng = random.Random(players)
    checked = 0
    hands = dict.fromkeys(range(players), "")
    """Each seat's hand as its page shows it (a frame sends it when more than its turn line changed)."""
    for step in range(70):
        state_json, awaiting, _name = await sync_to_async(snapshot)(match.pk)
        for seat, socket in watchers:
            frame = without_log(await socket.receive_from(timeout=10))
            for code in hidden_from(state_json, seat, game_name, awaiting):
                assert not mentions(frame, code), f"step {step}: seat {seat} was shown {code}"
            if seat is not None:
                hands[seat] = hand_shown(hands[seat], frame)
                for code in [] if awaiting else state_json["hands"][seat]:
                    assert f'value="{code}"' in hands[seat], f"seat {seat} does not see its own {code}"
            checked += 1
        if not await sync_to_async(random_move)(match.pk, rng):
            break
    assert checked > 100
    for socket in [*sockets, spectator]:
        await socket.disconnect()


async def test_moves_by_frame_and_errors_for_this_connection_only():
    match, users = await sync_to_async(human_match)("americana", 2)
    first, second = [await open_socket(match.table_id, user) for user in users]
    await first.receive_from(timeout=5)
    await second.receive_from(timeout=5)
    state_json, _awaiting, _name = await sync_to_async(snapshot)(match.pk)
    to_act = state_json["to_act"]
    mover, other = (first, second) if to_act == 0 else (second, first)

    # An illegal card: the reason, to the mover only; nothing saved.
    await mover.send_to(text_data=json.dumps({"version": 0, "type": "take"}))
    notice = await mover.receive_from(timeout=5)
    assert 'id="notice"' in notice and "Nothing is waiting for you to take." in notice
    assert await other.receive_nothing(timeout=0.3)

    # Forged and malformed frames: an error, never a crash, nothing saved.
    for forged in [
        "not json",
        "[]",
        json.dumps({"type": "draw"}),
        json.dumps({"version": "x"}),
        json.dumps({"version": 0, "type": "play"}),
        json.dumps({"version": 0, "type": "steal"}),
        "x" * 10_000,
    ]:
        await mover.send_to(text_data=forged)
        assert 'id="notice"' in await mover.receive_from(timeout=5)
    # Acting for the other seat is impossible: the seat comes from the login, not the frame.
    await other.send_to(text_data=json.dumps({"version": 0, "type": "draw", "seat": to_act}))
    assert "It is not your turn." in await other.receive_from(timeout=5)
    assert await sync_to_async(Move.objects.count)() == 0

    # A real move: everyone gets the new table.
    await mover.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    assert 'name="version" value="1"' in await mover.receive_from(timeout=5)
    assert 'name="version" value="1"' in await other.receive_from(timeout=5)
    # The same click again (double click, second tab): stale, answered with the current table.
    await mover.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    assert 'name="version" value="1"' in await mover.receive_from(timeout=5)
    assert await sync_to_async(Move.objects.count)() == 1
    await first.disconnect()
    await second.disconnect()


async def test_a_move_the_database_fails_changes_nothing_and_the_same_frame_then_plays(failing_inserts):
    match, users = await sync_to_async(human_match)("americana", 2)
    first, second = [await open_socket(match.table_id, user) for user in users]
    await first.receive_from(timeout=5)
    await second.receive_from(timeout=5)
    state_json, _awaiting, _name = await sync_to_async(snapshot)(match.pk)
    mover, other = (first, second) if state_json["to_act"] == 0 else (second, first)
    draw = json.dumps({"version": 0, "type": "draw"})

    await sync_to_async(failing_inserts.start)("gameplay_move")
    await mover.send_to(text_data=draw)
    notice = await mover.receive_from(timeout=5)
    assert 'id="notice"' in notice and "could not make that move just now: nothing changed." in notice
    assert await other.receive_nothing(timeout=0.3)
    assert await sync_to_async(snapshot)(match.pk) == (state_json, False, "americana")
    assert await sync_to_async(Move.objects.count)() == 0

    # The socket was kept: the same click, once the database takes it, is the move.
    await sync_to_async(failing_inserts.stop)()
    await mover.send_to(text_data=draw)
    assert 'name="version" value="1"' in await mover.receive_from(timeout=5)
    assert 'name="version" value="1"' in await other.receive_from(timeout=5)
    assert await sync_to_async(Move.objects.count)() == 1
    await first.disconnect()
    await second.disconnect()


def next_turn(match_id: int, rng: random.Random) -> tuple[int | None, dict | None, int]:
    """(the seat to move, a legal move for it, the version) while a round is played; (None, None, the
    version) once the next round is dealt here, or when the match is over."""
    match = Match.objects.get(pk=match_id)
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    if game.is_over(state):
        return None, None, match.version
    if game.awaiting_deal(state):
        services.round_deal_next(match_id=match_id, expected_version=match.version)
        return None, None, match.version
    action = rng.choice([game.action_to_json(a) for a in game.legal_actions(state)])
    return game.to_act(state), action, match.version


@pytest.fixture
def machine_speed(settings):
    """Frames sent as fast as the server answers, far faster than anyone plays: a budget to match."""
    settings.SOCKET_FRAMES_PER_SECOND = settings.SOCKET_FRAMES_BURST = 10_000


async def test_a_match_played_through_its_sockets_reaches_every_seat_to_its_end(machine_speed):
    """Each move made through a socket reaches both seats (rendered on the event loop mid-round, read
    again at a round's end and at the match's, whose screen reads more than a move holds)."""
    match, users = await sync_to_async(human_match)("americana", 2)
    sockets = [await open_socket(match.table_id, user) for user in users]
    for socket in sockets:
        await socket.receive_from(timeout=5)
    rng = random.Random(7)
    while not await sync_to_async(lambda: Match.objects.get(pk=match.pk).status != "playing")():
        seat, action, version = await sync_to_async(next_turn)(match.pk, rng)
        if seat is not None:
            await sockets[seat].send_to(text_data=json.dumps({"version": version, **action}))
        for socket in sockets:
            frame = await socket.receive_from(timeout=10)
            assert 'data-testid="match-over"' in frame or f'name="version" value="{version + 1}"' in frame
    assert await sync_to_async(Move.objects.filter(match=match).count)() > 50
    for socket in sockets:
        await socket.disconnect()


async def test_a_spectator_cannot_play_and_a_reconnect_gets_the_current_table():
    match, users = await sync_to_async(human_match)("classic", 2)
    watcher = await sync_to_async(make_user)("watcher")
    await sync_to_async(Table.objects.filter(pk=match.table_id).update)(is_private=False, turn_clock=90)
    spectator = await open_socket(match.table_id, watcher)
    assert "You are watching this table." in await spectator.receive_from(timeout=5)
    await spectator.send_to(text_data=json.dumps({"version": 0, "type": "end"}))
    assert "only its players can play" in await spectator.receive_from(timeout=5)
    await spectator.disconnect()
    await sync_to_async(random_move)(match.pk, random.Random(1))
    again = await open_socket(match.table_id, users[0])
    assert 'name="version" value="1"' in await again.receive_from(timeout=5)
    await again.disconnect()


MALFORMED = [
    "{}",
    '{"version": Infinity, "type": "draw"}',
    '{"version": -Infinity, "type": "draw"}',
    '{"version": NaN, "type": "draw"}',
    '{"version": 1e999, "type": "draw"}',
    '{"version": 0.0, "type": "draw"}',
    '{"version": true, "type": "draw"}',
    '{"version": "\u0661", "type": "draw"}',
    '{"version": 0, "type": ["play"], "card": "AS"}',
    '{"version": 0, "type": {"play": 1}, "card": "AS"}',
    '{"version": 0, "type": "play", "card": ["AS"]}',
    '{"version": 0, "type": "play", "card": "7S", "suit": {"S": 1}}',
    '{"version": 0, "type": "play", "card": "7S", "suit": "Z"}',
    "[" * 3000 + "]" * 3000,
    '{"version": ' + "[" * 2000 + "]" * 2000 + "}",
]


async def seated_and_watching():
    """A two-player match: (match, the seat waiting for its turn, a spectator), both connected."""
    match, users = await sync_to_async(human_match)("americana", 2)
    await sync_to_async(Table.objects.filter(pk=match.table_id).update)(is_private=False, turn_clock=90)
    state_json, _awaiting, _name = await sync_to_async(snapshot)(match.pk)
    waiting = await open_socket(match.table_id, users[1 - state_json["to_act"]])
    spectator = await open_socket(match.table_id, await sync_to_async(make_user)("watcher"))
    await waiting.receive_from(timeout=5)
    await spectator.receive_from(timeout=5)
    return match, 1 - state_json["to_act"], waiting, spectator


async def in_group(table_id: int) -> int:
    """How many connections subscribe to the table's group in Redis (one per process with viewers)."""
    return await subscribers(table_group(table_id))


async def subscribers(group: str) -> int:
    """How many connections subscribe to ``group`` in Redis (one per process in it)."""
    client = Redis.from_url(django_settings.REDIS_URL)
    try:
        [(_name, count)] = await client.pubsub_numsub(get_channel_layer()._get_group_channel_name(group))
    finally:
        await client.aclose()
    return count


async def forget_group(table_id: int) -> None:
    """The process's place in the table's group dropped (unsubscribed in Redis), as when Redis
    forgets a subscription: the process hears nothing of the table from other processes until its
    heartbeat rejoins."""
    await get_channel_layer().group_discard(table_group(table_id), TABLE_NEWS.channel)


def restart_heartbeat() -> None:
    """The process's heartbeat started again, so it waits ``PRESENCE_HEARTBEAT_SECONDS`` as set now
    rather than finishing a wait begun under the old value."""
    TABLE_NEWS.heartbeat.cancel()
    TABLE_NEWS.heartbeat = TABLE_NEWS.loop.create_task(TABLE_NEWS._beat(TABLE_NEWS.layer))


def moved_elsewhere(match_id: int, rng: random.Random) -> bool:
    """``random_move`` as another process makes it (a bot's move in the worker, a player's on another
    server): its news reaches this process only through Redis."""
    with mock.patch.object(events, "_HERE", []):
        return random_move(match_id, rng)


async def test_malformed_frames_are_refused_without_a_crash_and_the_connection_still_cleans_up():
    match, seat, waiting, spectator = await seated_and_watching()
    refusals = {
        waiting: ("could not be read", "not a move of this game"),
        spectator: ("could not be read", "only its players can play"),
    }
    for socket in (waiting, spectator):
        for frame in MALFORMED:
            await socket.send_to(text_data=frame)
            reply = await socket.receive_from(timeout=5)
            assert any(words in reply for words in refusals[socket]), frame
        await socket.send_to(bytes_data=b'{"version": 0, "type": "draw"}')
        assert "could not be read" in await socket.receive_from(timeout=5)
    assert await sync_to_async(Move.objects.count)() == 0
    assert await sync_to_async(presence.connections)(match.table_id, seat) == 1
    assert await in_group(match.table_id) == 1  # one place in the group for the process's viewers
    await waiting.disconnect()
    assert await in_group(match.table_id) == 1
    await spectator.disconnect()
    assert await sync_to_async(presence.connections)(match.table_id, seat) == 0
    assert await in_group(match.table_id) == 0


async def test_a_consumer_that_fails_still_leaves_its_group_and_its_seat():
    match, seat, waiting, spectator = await seated_and_watching()
    # A message no handler knows makes the consumer fail, as any unforeseen error would.
    unknown = {"type": "no.such.thing", "table": match.table_id}
    await get_channel_layer().group_send(table_group(match.table_id), unknown)
    for socket in (waiting, spectator):
        with pytest.raises(ValueError, match="No handler"):
            await socket.receive_from(timeout=5)
    assert await sync_to_async(presence.connections)(match.table_id, seat) == 0
    assert await sync_to_async(presence.away_seconds)(match.table_id, seat) is not None
    assert await in_group(match.table_id) == 0


async def test_news_for_a_page_that_has_just_closed_is_dropped_and_its_seat_still_leaves():
    """Daphne raises when an update goes out on a socket the page has just closed, its disconnect still
    on the way: the update is dropped, and the disconnect then cleans up as usual (no traceback)."""
    match, users = await sync_to_async(human_match)("americana", 2, clock=90, prefix="closing")
    state_json, _awaiting, _name = await sync_to_async(snapshot)(match.pk)
    seat = 1 - state_json["to_act"]
    closed = False

    async def daphne_like(scope, receive, send):
        async def send_while_open(message):
            if closed and message["type"] == "websocket.send":
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        await application(scope, receive, send_while_open)

    headers = await sync_to_async(session_headers)(users[seat])
    page = WebsocketCommunicator(daphne_like, f"/ws/tables/{match.table_id}/", headers=headers)
    assert (await page.connect())[0]
    await page.receive_from(timeout=5)
    watcher = await open_socket(match.table_id, await sync_to_async(make_user)("closing-watcher"))
    await watcher.receive_from(timeout=5)
    closed = True
    await sync_to_async(random_move)(match.pk, random.Random(5))
    assert 'name="version" value="1"' in await watcher.receive_from(timeout=5)
    assert await page.receive_nothing(timeout=0.5)  # the page's update was dropped, not raised
    assert await sync_to_async(presence.connections)(match.table_id, seat) == 1
    await page.disconnect()
    assert await sync_to_async(presence.connections)(match.table_id, seat) == 0
    await watcher.disconnect()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
WORDS = st.sampled_from(["play", "draw", "take", "sit_out", "end", "back", "7S", "AS", "10H", "XR", "S", ""])
NUMBER_TEXT = st.sampled_from(["1e999", "-1e999", "Infinity", "-Infinity", "NaN", "1.0", "-0", "0" * 40])
FIELD = JSON_VALUES | WORDS | st.integers(min_value=0, max_value=3).map(str)
FRAMES = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"version": FIELD, "type": FIELD, "card": FIELD, "suit": FIELD, "headers": JSON_VALUES}
    ).map(json.dumps),
    st.builds('{{"version": {}, "type": {}}}'.format, NUMBER_TEXT, WORDS.map(json.dumps)),
    st.text(max_size=40),
    JSON_VALUES.map(json.dumps),
)


async def test_fuzzed_frames_get_a_clear_refusal_and_change_nothing(machine_speed):
    match, seat, waiting, spectator = await seated_and_watching()

    @settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(text=FRAMES.filter(bool), by_spectator=st.booleans())
    def refused(text: str, by_spectator: bool) -> None:
        socket = spectator if by_spectator else waiting
        async_to_sync(socket.send_to)(text_data=text)
        frame = parse_frame(text)
        if isinstance(frame, Frame) and frame.action is None and not by_spectator:
            # "I'm back" while playing in person: nothing to do, nothing to say.
            assert async_to_sync(socket.receive_nothing)(timeout=0.5)
        else:
            reply = async_to_sync(socket.receive_from)(timeout=5)
            assert 'id="notice"' in reply and re.search(r'role="alert"[^>]*>\s*\S', reply), text

    # Off the thread the consumer's own thread-sensitive work runs on, which it would block.
    await sync_to_async(refused, thread_sensitive=False)()
    assert await sync_to_async(Move.objects.count)() == 0
    assert await sync_to_async(presence.connections)(match.table_id, seat) == 1
    # Still connected and listening: a move by the other seat reaches both.
    await sync_to_async(random_move)(match.pk, random.Random(3))
    assert 'name="version" value="1"' in await waiting.receive_from(timeout=5)
    assert 'name="version" value="1"' in await spectator.receive_from(timeout=5)
    await waiting.disconnect()
    await spectator.disconnect()


async def test_the_heartbeat_keeps_the_seat_present_rejoins_a_forgotten_group_and_catches_up(settings):
    settings.PRESENCE_TTL_SECONDS = 1.0
    settings.PRESENCE_HEARTBEAT_SECONDS = 60  # still while the group is forgotten and a move missed
    match, seat, waiting, spectator = await seated_and_watching()
    restart_heartbeat()
    await forget_group(match.table_id)  # what a Redis restart does
    assert await in_group(match.table_id) == 0
    rng = random.Random(3)
    await sync_to_async(moved_elsewhere)(match.pk, rng)  # nobody here hears of it
    assert await waiting.receive_nothing(timeout=0.3)
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.2
    restart_heartbeat()
    await asyncio.sleep(1.5)  # past the TTL: only the heartbeat keeps the seat counted
    assert await sync_to_async(presence.connections)(match.table_id, seat) == 1
    assert await in_group(match.table_id) == 1
    # The heartbeat found the table a move ahead of both pages, and sent it.
    assert 'name="version" value="1"' in await waiting.receive_from(timeout=5)
    assert 'name="version" value="1"' in await spectator.receive_from(timeout=5)
    await sync_to_async(random_move)(match.pk, rng)
    assert 'name="version" value="2"' in await waiting.receive_from(timeout=5)
    assert 'name="version" value="2"' in await spectator.receive_from(timeout=5)
    await waiting.disconnect()
    await spectator.disconnect()


async def test_a_move_made_in_this_process_reaches_its_viewers_here_at_once_and_once():
    match, _seat, waiting, spectator = await seated_and_watching()
    rng = random.Random(3)
    await sync_to_async(random_move)(match.pk, rng)
    assert 'name="version" value="1"' in await waiting.receive_from(timeout=5)
    assert 'name="version" value="1"' in await spectator.receive_from(timeout=5)
    # The same news comes back from Redis, and is dropped there.
    news = {"type": "table.changed", "table": match.table_id, "version": 1, "match_only": True}
    for _ in range(50):
        if not TABLE_NEWS.echoes[echo_key(news)]:
            break
        await asyncio.sleep(0.1)
    assert not TABLE_NEWS.echoes[echo_key(news)]
    assert await waiting.receive_nothing(timeout=0.5)
    # Without Redis bringing it back (the group forgotten), the viewers here still hear of it.
    await forget_group(match.table_id)
    await sync_to_async(random_move)(match.pk, rng)
    assert 'name="version" value="2"' in await waiting.receive_from(timeout=5)
    assert 'name="version" value="2"' in await spectator.receive_from(timeout=5)
    assert TABLE_NEWS.echoes[echo_key({**news, "version": 2})] == 1  # its echo never comes
    await waiting.disconnect()
    await spectator.disconnect()


async def test_without_its_channel_layer_a_table_socket_is_closed_for_a_retry_not_crashed(settings, caplog):
    match, users = await sync_to_async(human_match)("americana", 2)
    nowhere = {"hosts": ["redis://127.0.0.1:1/0"]}  # nothing listens there: Redis is down
    backend = "channels_redis.pubsub.RedisPubSubChannelLayer"
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": backend, "CONFIG": nowhere}}
    socket = await table_communicator(f"/ws/tables/{match.table_id}/", users[0])
    assert await socket.connect(timeout=10) == (False, TRY_AGAIN_LATER)  # the page reconnects after 4013
    await socket.wait(timeout=10)  # the consumer ended without an error
    assert await sync_to_async(presence.connections)(match.table_id, 0) == 0
    assert not [record for record in caplog.records if record.levelname == "ERROR"]
    assert any("out of reach" in record.getMessage() for record in caplog.records)


class CountedQueries:
    """Every database query any thread runs while it is in force, counted."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> "CountedQueries":
        execute = CursorWrapper.execute

        def counted(cursor, *args, **kwargs):
            self.count += 1
            return execute(cursor, *args, **kwargs)

        self.patch = mock.patch.object(CursorWrapper, "execute", counted)
        self.patch.start()
        return self

    def __exit__(self, *exc) -> None:
        self.patch.stop()


async def test_a_spectators_frames_are_refused_without_a_query_or_touching_the_shared_table(settings):
    settings.PRESENCE_HEARTBEAT_SECONDS = 60  # no heartbeat's query falls in the count
    match, _seat, _waiting, spectator = await seated_and_watching()
    restart_heartbeat()
    held = SHARED_TABLES.entries[match.table_id]
    frames = [
        json.dumps({"version": 0, "type": "draw"}),
        json.dumps({"version": 0, "type": "back"}),
        json.dumps({"version": 7, "type": "play", "card": "7S", "suit": "H"}),
        json.dumps({"version": 0, "type": "steal"}),
        "not json",
    ]
    with CountedQueries() as queries:
        for frame in frames:
            await spectator.send_to(text_data=frame)
            reply = await spectator.receive_from(timeout=5)
            assert "only its players can play" in reply or "could not be read" in reply
    assert queries.count == 0
    assert SHARED_TABLES.entries[match.table_id] is held  # every viewer's rendered fragments kept
    await spectator.disconnect()
    await _waiting.disconnect()


async def test_a_players_stale_frames_are_answered_from_the_table_held_not_a_new_read(settings):
    """A double click, a second tab: moves made against a version the match is not at are answered
    with the table as this process holds it, so a burst of them costs no read of the table and keeps
    every viewer's rendered fragments."""
    settings.PRESENCE_HEARTBEAT_SECONDS = 60  # no heartbeat's read replaces the entry meanwhile
    match, _seat, waiting, spectator = await seated_and_watching()
    restart_heartbeat()
    held = SHARED_TABLES.entries[match.table_id]
    for _ in range(5):
        await waiting.send_to(text_data=json.dumps({"version": held.version + 5, "type": "draw"}))
        reply = await waiting.receive_from(timeout=5)
        assert 'id="hand-area"' in reply  # the whole table again, as it stands
    assert SHARED_TABLES.entries[match.table_id] is held
    await waiting.disconnect()
    await spectator.disconnect()


async def test_a_watcher_who_sits_down_plays_as_the_seat_the_page_was_shown():
    ana, ion = await sync_to_async(make_user)("host"), await sync_to_async(make_user)("guest")
    table = await sync_to_async(services.table_create)(
        host=ana, game="americana", options={"players": 3}, turn_clock=45, is_private=False
    )
    room = await open_table_socket(f"/ws/tables/{table.pk}/", ion)
    await room.receive_from(timeout=5)
    await room.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    assert "only its players can play" in await room.receive_from(timeout=5)
    await sync_to_async(table_services.seat_take)(table_id=table.pk, user=ion)
    assert "Sit here" not in await room.receive_from(timeout=5)  # the room as it is now: ion sits
    await room.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    assert "The match has not started yet." in await room.receive_from(timeout=5)
    await room.disconnect()


async def test_sockets_to_tables_that_do_not_exist_leave_nothing_behind():
    user = await sync_to_async(make_user)("prober")
    made_up = [10**9 + n for n in range(20)]
    for table_id in made_up:
        socket = await table_communicator(f"/ws/tables/{table_id}/", user)
        assert await socket.connect(timeout=5) == (False, FORBIDDEN)
    assert not set(made_up) & (set(SHARED_TABLES.locks) | set(SHARED_TABLES.entries))


async def test_a_table_socket_sending_too_many_frames_is_closed_and_told_why_in_its_language(settings):
    settings.SOCKET_FRAMES_BURST = 5
    settings.SOCKET_FRAMES_PER_SECOND = 0.01
    match, users = await sync_to_async(human_match)("americana", 2)
    player = await open_table_socket(f"/ws/tables/{match.table_id}/?lang=ro", users[0])
    await player.receive_from(timeout=5)
    for _frame in range(5):  # stale moves: each answered with the table
        await player.send_to(text_data=json.dumps({"version": 99, "type": "draw"}))
        await player.receive_from(timeout=5)
    for _frame in range(100):
        await player.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    closing = json.loads(await player.receive_from(timeout=5))
    assert "prea multe mesaje" in closing["content"] and closing["target"] == "#main"
    assert await player.receive_output(timeout=5) == {"type": "websocket.close", "code": TOO_MANY_FRAMES}
    assert await sync_to_async(Move.objects.count)() == 0  # nothing after the budget was acted on


def ban(user) -> None:
    """What the ban does to a person, as far as their open pages go."""
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    events.user_banned(user.pk)


async def closed_by_the_ban(socket: WebsocketCommunicator, words: str) -> None:
    notice = json.loads(await socket.receive_from(timeout=5))
    assert words in notice["content"]
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": FORBIDDEN}


async def test_a_ban_closes_the_persons_table_waiting_room_and_lobby_at_once():
    match, (ana, ion) = await sync_to_async(human_match)("americana", 2)  # a private table
    waiting = await sync_to_async(services.table_create)(
        host=ana, game="classic", options={"players": 2}, turn_clock=45, is_private=False
    )
    at_table = await open_socket(match.table_id, ana)
    in_room = await open_table_socket(f"/ws/tables/{waiting.pk}/", ana)
    in_lobby = await open_table_socket("/ws/lobby/?lang=ro", ana)
    other = await open_socket(match.table_id, ion)
    for socket in (at_table, in_room, other):
        await socket.receive_from(timeout=5)

    await sync_to_async(ban)(ana)
    await closed_by_the_ban(at_table, "Your account has been deactivated")
    await closed_by_the_ban(in_room, "Your account has been deactivated")
    await closed_by_the_ban(in_lobby, "Contul tău a fost dezactivat")
    assert await other.receive_nothing(timeout=0.5)  # everyone else plays on
    # A page she opens now is nobody's: the private table turns it away.
    again = await table_communicator(f"/ws/tables/{match.table_id}/", ana)
    assert await again.connect(timeout=5) == (False, FORBIDDEN)
    await other.disconnect()


async def test_the_heartbeat_takes_the_users_group_again_after_redis_forgot_it(settings):
    settings.PRESENCE_HEARTBEAT_SECONDS = 60
    match, seat, waiting, spectator = await seated_and_watching()
    person = await sync_to_async(lambda: Table.objects.get(pk=match.table_id).seats.get(position=seat).user)()
    lobby = await open_table_socket("/ws/lobby/", person)
    for news in (TABLE_NEWS, LOBBY_NEWS):
        news.heartbeat.cancel()
        await get_channel_layer().group_discard(USERS_GROUP, news.channel)  # what a Redis restart does
    assert await subscribers(USERS_GROUP) == 0
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.2
    for news in (TABLE_NEWS, LOBBY_NEWS):
        news.heartbeat = news.loop.create_task(news._beat(news.layer))
    await asyncio.sleep(1)
    assert await subscribers(USERS_GROUP) == 1
    await sync_to_async(ban)(person)
    await closed_by_the_ban(waiting, "Your account has been deactivated")
    await closed_by_the_ban(lobby, "Your account has been deactivated")
    await spectator.disconnect()


async def test_a_slow_heartbeat_leaves_the_pages_open_and_a_lost_channel_layer_closes_them(settings, caplog):
    """A beat whose work outlasts it (a crowd's tables all starting at once) is not Redis lost: the
    pages stay. Only failing to take the process's place in its groups closes them for a retry."""
    _match, _seat, waiting, spectator = await seated_and_watching()
    TABLE_NEWS.heartbeat.cancel()
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.2

    async def slow_work(layer) -> None:
        await asyncio.sleep(1)

    with mock.patch.object(TABLE_NEWS, "_beat_work", slow_work):
        TABLE_NEWS.heartbeat = TABLE_NEWS.loop.create_task(TABLE_NEWS._beat(TABLE_NEWS.layer))
        await asyncio.sleep(1.5)
        assert await waiting.receive_nothing(timeout=0.3) and await spectator.receive_nothing(timeout=0.1)
        assert any("work failed or was slow" in record.getMessage() for record in caplog.records)

        async def refused(group, channel) -> None:
            raise ConnectionError("Redis is away")

        with mock.patch.object(TABLE_NEWS.layer, "group_add", refused):
            await asyncio.sleep(0.6)
    TABLE_NEWS.heartbeat.cancel()
    assert any("the heartbeat failed" in record.getMessage() for record in caplog.records)
    closed = await waiting.receive_output(timeout=5)
    assert closed["type"] == "websocket.close" and closed["code"] == TRY_AGAIN_LATER
    await spectator.disconnect()
