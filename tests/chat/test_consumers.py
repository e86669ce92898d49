"""The chat over the table's own socket, on PostgreSQL and Redis: lines reach the readers they are
for, each in the reader's language; refusals reach the sender only, with the reason."""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import formats, timezone, translation
from django.utils.html import escape
from django.utils.translation import gettext

from accounts.models import User
from chat import services
from chat.models import ChatMessage, Ignore, Report, Room, TableChat
from chat.phrases import PHRASES
from gameplay.models import Move
from social import services as social_services
from tables.fragments import FORBIDDEN
from tests.channels import open_socket
from tests.factories import make_user
from tests.gameplay.helpers import human_match
from tests.gameplay.test_consumers import hidden_from, mentions, snapshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def until(socket, predicate, tries: int = 10) -> str:
    for _ in range(tries):
        frame = await socket.receive_from(timeout=5)
        if predicate(frame):
            return frame
    raise AssertionError("no such frame")


async def test_a_phrase_reaches_each_player_in_their_language_and_not_the_spectators(settings):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    watcher = await sync_to_async(make_user)("watcher")
    ro = await open_socket(f"/ws/tables/{match.table_id}/?lang=ro", users[0])
    en = await open_socket(f"/ws/tables/{match.table_id}/?lang=en", users[1])
    spectator = await open_socket(f"/ws/tables/{match.table_id}/?lang=en", watcher)
    for socket in (ro, en, spectator):
        await socket.receive_from(timeout=5)
    await ro.send_to(text_data=json.dumps({"type": "chat", "phrase": "gg", "text": ""}))
    seen_ro = await until(ro, lambda frame: "chat-log-players" in frame)
    seen_en = await until(en, lambda frame: "chat-log-players" in frame)
    assert "Joc bun!" in json.loads(seen_ro)["content"]
    assert "Good game!" in json.loads(seen_en)["content"]
    assert await spectator.receive_nothing(timeout=0.5)
    message = await sync_to_async(ChatMessage.objects.get)()
    assert message.room == Room.PLAYERS and message.phrase == "gg" and message.match_id == match.pk
    for socket in (ro, en, spectator):
        await socket.disconnect()


# --- Who reads what, refusals, moderation, forged frames ---------------------------------------------


def html_of(frame: str) -> str:
    """A frame's markup: a line said comes as htmx's JSON message, the rest as out-of-band fragments."""
    if frame.startswith("{"):
        return json.loads(frame)["content"]
    return frame


def in_language(language: str, template: str, params: dict | None = None) -> str:
    """A refusal's words as the sender's page shows them (escaped as the template escapes them)."""
    with translation.override(language):
        return escape(gettext(template) % (params or {}))


async def opened(path: str, user) -> WebsocketCommunicator:
    """A table page's socket, its first frame (the table and the chat as they stand) read."""
    socket = await open_socket(path, user)
    await socket.receive_from(timeout=5)
    return socket


async def say(socket, **frame) -> None:
    await socket.send_to(text_data=json.dumps({"type": "chat", "phrase": "", "text": "", **frame}))


async def line_said(socket, words: str) -> str:
    return html_of(await until(socket, lambda frame: "chat-log-" in frame and words in html_of(frame)))


SAID_NOTICE = re.compile(r'id="(chat-)?notice"[^>]*>[^<]+<')


async def notice(socket) -> str:
    """The reply to a frame that was refused: the chat's notice, or the table's (a frame the chat's
    reader does not take as the chat's goes to the moves), saying why (a message said clears it)."""
    return html_of(await until(socket, lambda frame: SAID_NOTICE.search(html_of(frame)) is not None))


async def drained(*sockets, quiet: float = 0.5) -> list[str]:
    """Everything the sockets were sent until each fell quiet (a seat's arrival, a page's own reply)."""
    seen = []
    for socket in sockets:
        # Not receive_from's timeout: the test communicator cancels the consumer when it runs out.
        while not await socket.receive_nothing(timeout=quiet):
            seen.append(await socket.receive_from(timeout=5))
    return seen


async def close_all(*sockets) -> None:
    for socket in sockets:
        await socket.disconnect()


@pytest.fixture
def typing(settings):
    """Every account may type (no matches to finish first)."""
    settings.CHAT_FREE_TEXT_MATCHES = 0


async def seated_and_watched(players: int = 2, languages=("en", "en", "en")):
    match, users = await sync_to_async(human_match)("americana", players, clock=45)
    watcher = await sync_to_async(make_user)("watcher")
    base = f"/ws/tables/{match.table_id}/"
    seats = [await opened(f"{base}?lang={languages[index]}", user) for index, user in enumerate(users)]
    spectator = await opened(f"{base}?lang=en", watcher)
    await drained(*seats, spectator)  # each arrival shown to the pages open before it
    return match, users, watcher, seats, spectator


async def test_the_seated_read_the_players_room_and_spectators_only_theirs(typing):
    match, _users, _watcher, seats, spectator = await seated_and_watched()
    await say(seats[0], text="secret plan from the players")
    for socket in seats:
        line = await line_said(socket, "secret plan from the players")
        assert 'id="chat-line-' in line
    for socket in seats:  # once: not again when its news comes back through Redis
        assert not [frame for frame in await drained(socket) if "secret plan" in frame]
    assert await spectator.receive_nothing(timeout=0.5)
    # A spectator opening the page later is not shown it either, nor its author's words in any frame.
    late = await open_socket(f"/ws/tables/{match.table_id}/", await sync_to_async(make_user)("late"))
    first = await late.receive_from(timeout=5)
    assert "secret plan" not in first and 'id="chat-log-players"' not in first
    await say(spectator, text="hello from the rail")
    for socket in (*seats, spectator, late):
        await line_said(socket, "hello from the rail")
    message = await sync_to_async(ChatMessage.objects.get)(text="hello from the rail")
    assert message.room == Room.WATCHERS
    await close_all(*seats, spectator, late)


async def test_a_line_by_someone_ignored_or_blocked_is_not_sent_to_the_reader(typing):
    match, users = await sync_to_async(human_match)("americana", 3, clock=45)
    await sync_to_async(social_services.block)(user=users[2], other=users[0])
    base = f"/ws/tables/{match.table_id}/"
    talker, ignorer, blocker = [await opened(base, user) for user in users]
    await drained(talker, ignorer, blocker)
    await say(talker, text="first words")
    first = await line_said(ignorer, "first words")
    message_id = int(re.search(r'id="chat-line-(\d+)"', first).group(1))
    assert await blocker.receive_nothing(timeout=0.5)  # the block, either way
    await ignorer.send_to(text_data=json.dumps({"type": "chat_ignore", "target": str(message_id)}))
    redrawn = await until(ignorer, lambda frame: 'id="chat-logs"' in frame)
    assert "first words" not in redrawn  # the page shows its chat anew, without them
    await drained(ignorer, blocker)  # the ignore's news redraws the chat on every page of the person
    await say(talker, text="second words")
    await line_said(talker, "second words")  # the author sees their own line
    assert not [frame for frame in await drained(ignorer, blocker) if "words" in frame]
    await close_all(talker, ignorer, blocker)


async def test_an_ignore_from_one_tab_redraws_the_chat_on_the_same_persons_other_tab(typing):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    base = f"/ws/tables/{match.table_id}/"
    talker = await opened(base, users[0])
    tab, other_tab = await opened(base, users[1]), await opened(base, users[1])
    await drained(talker, tab, other_tab)
    await say(talker, text="words to stop seeing")
    line = await line_said(tab, "words to stop seeing")
    await line_said(other_tab, "words to stop seeing")
    message_id = re.search(r'id="chat-line-(\d+)"', line).group(1)
    await tab.send_to(text_data=json.dumps({"type": "chat_ignore", "target": message_id}))
    redrawn = await until(other_tab, lambda frame: 'id="chat-logs"' in frame)
    assert "words to stop seeing" not in redrawn
    assert 'id="chat-composer"' in redrawn and users[0].username in redrawn  # "You ignore: ..."
    assert await sync_to_async(Ignore.objects.filter(person=users[1], ignored=users[0]).exists)()
    await close_all(talker, tab, other_tab)


async def test_a_block_made_while_both_pages_are_open_hides_each_from_the_other_at_once(typing):
    match, users = await sync_to_async(human_match)("americana", 2, clock=45)
    base = f"/ws/tables/{match.table_id}/"
    blocker, blocked = await opened(base, users[0]), await opened(base, users[1])
    await drained(blocker, blocked)
    await say(blocked, text="said by the one blocked")
    await line_said(blocker, "said by the one blocked")
    await say(blocker, text="said by the blocker")
    await line_said(blocked, "said by the blocker")
    await drained(blocker, blocked)
    await sync_to_async(social_services.block)(user=users[0], other=users[1])
    for page, unseen, own in (
        (blocker, "said by the one blocked", "said by the blocker"),
        (blocked, "said by the blocker", "said by the one blocked"),
    ):
        redrawn = await until(page, lambda frame: 'id="chat-logs"' in frame)
        assert unseen not in redrawn and own in redrawn
    await say(blocked, text="after the block")
    assert not await drained(blocker, quiet=0.5)  # not even the line's news reaches the blocker
    await close_all(blocker, blocked)


async def refused_to_the_sender_only(sender, others, words: str) -> None:
    shown = await notice(sender)
    assert 'id="chat-notice"' in shown and words in shown, shown
    for socket in others:
        assert not await drained(socket, quiet=0.3)


async def test_a_refused_message_reaches_only_its_sender_with_the_reason_in_their_language(
    settings, typing, celery_worker
):
    settings.CHAT_MESSAGES_PER_10_SECONDS = 3
    _match, users, _watcher, seats, spectator = await seated_and_watched(languages=("ro", "en"))
    sender, others = seats[0], [seats[1], spectator]
    await say(sender, text="x" * 201)
    await refused_to_the_sender_only(
        sender,
        others,
        in_language("ro", "A message holds at most %(count)d characters.", {"count": services.MAX_TEXT}),
    )
    for phrase in ("hello", "luck", "nice"):
        await say(sender, phrase=phrase)
    for phrase in ("hello", "luck", "nice"):
        with translation.override("en"):
            await line_said(seats[1], str(PHRASES[phrase]))
    await drained(*seats)
    await say(sender, phrase="thanks")
    await refused_to_the_sender_only(
        sender, others, in_language("ro", "You are sending messages too quickly: wait a few seconds.")
    )
    assert await sync_to_async(ChatMessage.objects.count)() == 3

    moderator = await sync_to_async(make_user)("mod", is_staff=True, is_superuser=True)
    suspension = await sync_to_async(services.chat_suspend)(
        subject_id=users[1].pk, by=moderator, reason="insults", length="1h"
    )
    await until(seats[1], lambda frame: 'id="chat-composer"' in frame)  # the page shows it is suspended
    await say(seats[1], phrase="sorry")
    with translation.override("en"):
        until_words = formats.date_format(timezone.localtime(suspension.until), "DATETIME_FORMAT")
    words = in_language(
        "en",
        "A moderator has suspended you from chat until %(until)s: %(reason)s",
        {"until": until_words, "reason": "insults"},
    )
    await refused_to_the_sender_only(seats[1], [seats[0], spectator], words)

    await seats[0].send_to(text_data=json.dumps({"type": "chat_phrases_only", "on": "1"}))
    # every page's message box says so: the host's at once, the others' when the worker announces it
    for socket in (*seats, spectator):
        await until(socket, lambda frame: 'id="chat-composer"' in frame)
    # The host's page again, with the others.
    await until(seats[0], lambda frame: 'id="chat-composer"' in frame)
    await say(spectator, text="typed by a spectator")
    await refused_to_the_sender_only(
        spectator, seats, in_language("en", "At this table the host allows quick phrases only.")
    )
    assert await sync_to_async(ChatMessage.objects.count)() == 3
    await close_all(*seats, spectator)


async def test_a_line_the_database_fails_is_answered_with_try_again_and_the_socket_stays_open(
    typing, failing_inserts
):
    _match, _users, _watcher, seats, spectator = await seated_and_watched()
    await sync_to_async(failing_inserts.start)("chat_chatmessage")
    await say(seats[0], text="lost in a deadlock")
    refused = await notice(seats[0])
    assert in_language("en", "The server could not do that just now: try again.") in refused
    assert 'id="chat-composer' not in refused  # the composer is not redrawn: what was typed stays
    assert await sync_to_async(ChatMessage.objects.count)() == 0
    for socket in (seats[1], spectator):
        assert not [frame for frame in await drained(socket) if "lost in a deadlock" in frame]
    await sync_to_async(failing_inserts.stop)()
    await say(seats[0], text="said again")
    for socket in seats:
        await line_said(socket, "said again")
    assert await sync_to_async(ChatMessage.objects.filter(text="said again").count)() == 1
    await close_all(*seats, spectator)


async def test_a_moderators_removal_reaches_every_reader_as_the_removed_line(typing):
    _match, _users, _watcher, seats, spectator = await seated_and_watched()
    await say(spectator, text="rude words from the rail")
    await say(seats[0], text="rude words from a player")
    for socket in seats:  # the two lines, in whichever order they come
        seen = ""
        for _frame in range(10):
            seen += html_of(await socket.receive_from(timeout=5))
            if "rude words from the rail" in seen and "rude words from a player" in seen:
                break
        assert "rude words from the rail" in seen and "rude words from a player" in seen
    await line_said(spectator, "rude words from the rail")
    moderator = await sync_to_async(make_user)("mod", is_staff=True, is_superuser=True)
    for text, readers in (
        ("rude words from the rail", (*seats, spectator)),
        ("rude words from a player", seats),
    ):
        message = await sync_to_async(ChatMessage.objects.get)(text=text)
        assert await sync_to_async(services.chat_remove)(message=message, by=moderator, reason="rude")
        for socket in readers:
            removed = await until(socket, lambda frame, pk=message.pk: f'id="chat-line-{pk}"' in frame)
            assert 'hx-swap-oob="true"' in removed and "is-removed" in removed
            assert "Removed by a moderator." in removed and text not in removed
    await close_all(*seats, spectator)


def counts() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (ChatMessage, Report, Ignore, TableChat, Move))


def elsewhere_players_line(user) -> int:
    """A line said in the players' room of another table (one ``user`` does not sit at)."""
    other_match, other_users = human_match("americana", 2, clock=45, prefix="other")
    return services.chat_say(table_id=other_match.table_id, user=other_users[0], phrase="gg").pk


FORGED = [
    {"type": "chat", "text": 5},
    {"type": "chat", "phrase": 7},
    {"type": "chat", "phrase": ["gg"]},
    {"type": "chat", "text": {"a": "b"}},
    {"type": "chat", "text": "y" * 1001},
    {"type": "chat", "phrase": "nosuchphrase"},
    {"type": "chat", "phrase": "GG"},
    {"type": "chat", "phrase": "", "text": "   \u200b  "},
    {"type": {"nested": "chat"}},
    {"type": ["chat"]},
    {"type": "chat_report", "target": 5, "reason": "spam"},
    {"type": "chat_report", "target": "1e3", "reason": "spam"},
    {"type": "chat_report", "target": "1234567890123", "reason": "spam"},
    {"type": "chat_report", "target": {"id": "1"}, "reason": "spam"},
    {"type": "chat_ignore", "target": "-1"},
    {"type": "chat_ignore"},
    {"type": "chat_phrases_only", "on": "1"},  # not the host
    {"type": "chat_phrases_only", "on": True},
]


async def test_forged_chat_frames_are_refused_with_a_notice_and_change_nothing(typing):
    match, users, _watcher, seats, spectator = await seated_and_watched(languages=("en", "ro"))
    other_line = await sync_to_async(elsewhere_players_line)(users[1])
    await say(seats[1], phrase="gg")
    for socket in seats:
        await until(socket, lambda frame: "chat-log-players" in frame)
    await drained(*seats, spectator)
    mine = await sync_to_async(ChatMessage.objects.get)(table_id=match.table_id)
    before = await sync_to_async(counts)()
    raw = [json.dumps(frame) for frame in FORGED] + [
        '{"type": "chat", "phrase": "gg", "text": NaN}',
        '{"type": "chat", "phrase": "", "text": Infinity}',
        json.dumps({"type": "chat", "text": "z" * 5000}),  # longer than any frame a form sends
        '{"type": "chat", "text": ' + "[" * 3000 + "]" * 3000 + "}",
        json.dumps({"type": "chat_report", "target": str(other_line), "reason": "spam"}),
        json.dumps({"type": "chat_ignore", "target": str(other_line)}),
        json.dumps({"type": "chat_report", "target": str(mine.pk), "reason": "nosuch"}),
        json.dumps({"type": "chat_report", "target": str(mine.pk), "reason": "spam"}),  # one's own line
    ]
    for frame in raw:
        await seats[1].send_to(text_data=frame)
        shown = await notice(seats[1])
        assert SAID_NOTICE.search(shown), (frame[:80], shown)
    # The reasons are in the sender's language (this one has its Romanian words).
    await seats[1].send_to(text_data=json.dumps({"type": "chat", "text": 5}))
    assert in_language("ro", "That message could not be read.") in await notice(seats[1])
    assert await sync_to_async(counts)() == before
    for socket in (seats[0], spectator):
        assert await socket.receive_nothing(timeout=0.5)
    await seats[1].send_to(text_data=json.dumps({"type": "chat", "phrase": "thanks"}))  # still open
    await line_said(seats[0], str(PHRASES["thanks"]))
    await close_all(*seats, spectator)


async def test_chat_frames_never_carry_another_seats_cards(typing):
    match, _users, _watcher, seats, spectator = await seated_and_watched(players=3)
    readers = [*enumerate(seats), (None, spectator)]
    for turn, phrase in enumerate(["hello", "luck", "nice", "oops"]):
        await say(seats[turn % 3], phrase=phrase)
    await say(spectator, text="who holds the seven?")
    line_id = await sync_to_async(
        lambda: ChatMessage.objects.filter(room=Room.PLAYERS).values_list("pk", flat=True).first()
    )()
    await seats[1].send_to(text_data=json.dumps({"type": "chat_ignore", "target": str(line_id)}))
    await seats[2].send_to(text_data=json.dumps({"type": "chat", "phrase": "nosuch"}))
    state_json, awaiting, game_name = await sync_to_async(snapshot)(match.pk)
    for seat, socket in readers:
        frames_seen = await drained(socket, quiet=1.0)
        assert frames_seen, f"seat {seat} was sent nothing"
        for frame in frames_seen:
            assert "chat" in frame and 'id="hand"' not in frame and 'id="table"' not in frame
            for code in hidden_from(state_json, seat, game_name, awaiting):
                assert not mentions(html_of(frame), code), f"seat {seat} was shown {code} in {frame[:200]}"
    await close_all(*seats, spectator)


@pytest.mark.parametrize(
    "gone",
    [{"is_active": False}, {"erased_at": timezone.now()}],
    ids=["banned", "erased"],
)
async def test_a_chat_frame_from_someone_no_longer_active_closes_the_page_though_the_ban_s_news_was_lost(
    typing, gone
):
    """The row is changed without a word to the pages (the ban's news lost on the way): the next chat
    frame reads the row, is refused, and the page is told and closed for good."""
    _match, users, _watcher, seats, spectator = await seated_and_watched()
    await sync_to_async(User.objects.filter(pk=users[0].pk).update)(**gone)
    await say(seats[0], text="still talking after the ban")
    told = await seats[0].receive_from(timeout=5)
    assert "deactivated" in told
    assert await seats[0].receive_output(timeout=5) == {"type": "websocket.close", "code": FORBIDDEN}
    assert not await sync_to_async(ChatMessage.objects.exists)()
    assert not [frame for frame in await drained(seats[1], spectator) if "still talking" in frame]
    await close_all(seats[1], spectator)
