"""A site with the chat left out (``CHAT_ENABLED=0``), run as its own process by ``test_left_out``: its
checks pass, a table's page and socket, the privacy pages and the data download say nothing of a chat,
and a move made by frame is answered.

Run as ``python -m tests.chat.left_out`` with the test database's ``DATABASE_URL``; exits non-zero on the
first thing that fails."""

import asyncio
import io
import json
import zipfile

import django


async def play() -> None:
    from asgiref.sync import sync_to_async
    from django.test import Client
    from django.urls import reverse

    from privacy.export import README_FILE, archive
    from tests.channels import open_socket
    from tests.gameplay.helpers import human_match, live_state

    match, users = await sync_to_async(human_match)("americana", 2, prefix="quiet")
    client = Client(HTTP_HOST="127.0.0.1")  # not run by the test runner: no "testserver" host
    await sync_to_async(client.force_login)(users[0])
    page = await sync_to_async(client.get)(reverse("gameplay:table", args=[match.table_id]))
    assert page.status_code == 200 and 'id="chat"' not in page.text, page.status_code
    for name in ("privacy:policy", "privacy:data", "privacy:close"):
        said = await sync_to_async(client.get)(reverse(name))
        assert said.status_code == 200 and "chat" not in said.text.lower(), (name, said.status_code)
        assert "whom someone ignores" not in said.text, name  # the chat's ignores: none to hide
    readme = await sync_to_async(archive)(users[0])
    with zipfile.ZipFile(io.BytesIO(readme)) as zipped:
        assert "chat" not in zipped.read(README_FILE).decode().lower()

    sockets = [await open_socket(f"/ws/tables/{match.table_id}/", user) for user in users]
    for socket in sockets:
        assert 'id="chat' not in await socket.receive_from(timeout=10)
    game, state = await sync_to_async(live_state)(match)
    mover = sockets[game.to_act(state)]
    await mover.send_to(text_data=json.dumps({"version": 0, "type": "draw"}))
    assert 'name="version" value="1"' in await mover.receive_from(timeout=10)
    # A chat frame is no one's here: the table reads it as a move, and refuses it.
    await mover.send_to(text_data=json.dumps({"type": "chat", "phrase": "hello"}))
    assert 'id="notice"' in await mover.receive_from(timeout=10)
    for socket in sockets:
        await socket.disconnect()


def main() -> None:
    django.setup()
    from django.apps import apps
    from django.core.management import call_command

    from gameplay.socket_parts import registered

    chat_parts = [part for part in registered() if part.__module__.partition(".")[0] == "chat"]
    assert not apps.is_installed("chat") and not chat_parts, "the chat is still in"
    call_command("check", fail_level="WARNING")
    asyncio.run(play())
    print("played without the chat")


if __name__ == "__main__":
    main()
