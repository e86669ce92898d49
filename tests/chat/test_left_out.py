"""The chat can be left out of a deployment: a settings switch (``CHAT_ENABLED=0``) drops the app, and
the site checks clean and its tables play on (``tests.chat.left_out``, in a process of its own)."""

import subprocess
import sys

from tests.conftest import ROOT, site_env


def test_the_tables_play_with_the_chat_left_out(transactional_db):
    ran = subprocess.run(
        [sys.executable, "-m", "tests.chat.left_out"],
        cwd=ROOT,
        env=site_env(CHAT_ENABLED="0", DJANGO_SETTINGS_MODULE="config.settings"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "played without the chat" in ran.stdout
