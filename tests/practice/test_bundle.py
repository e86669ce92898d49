"""The browser's Python (``manage.py buildpractice``) holds everything the practice table needs:
run from the unpacked zip alone, with no site-packages, as Pyodide runs it."""

import json
import os
import subprocess
import sys
import zipfile

from django.test import override_settings

from practice import bundle

IN_THE_BROWSER = r"""
import json, random, sys
root = sys.argv[1]
sys.path.insert(0, root)
from practice import offline
offline.configure(root, "en", json.dumps([["ro", "Română"], ["en", "English"]]))
pace = json.dumps({"bot": [0, 0], "fast_bot": [0, 0], "round": 0})
bots = json.dumps(["hard", "easy"])
record = offline.new_record("americana", json.dumps({"players": 3}), bots, False, "test")
offline.warm("ro")
table = offline.open_table(record, "ro", "ana", pace)
first = table.page()
table.connect()
from bots import policies
rng = random.Random(1)
while not table.finished:
    if table.due() is None:
        game = table.game
        legal = [game.action_to_json(a) for a in game.legal_actions(table.state)]
        action = policies.choose(game.view(table.state, 0), legal, "easy", rng)
        last = table.receive(json.dumps({"version": table.version, **action}))
    else:
        last = table.advance()
outside = sorted(
    name for name, module in sys.modules.items()
    if getattr(module, "__file__", None) and not module.__file__.startswith((root, sys.base_prefix))
)
print(json.dumps({"first": first, "last": last, "outside": outside, "actions": len(table.record["actions"])}))
"""


def test_the_bundle_runs_the_practice_table_with_nothing_else_installed(tmp_path):
    with override_settings(PRACTICE_BUILD_DIR=tmp_path / "build"):
        note = bundle.build()
        again = bundle.zip_bytes()
    archive = tmp_path / "build" / note["file"]
    assert archive.read_bytes() == again, "the same code makes the same bundle"
    assert note["file"] == f"python-{note['version']}.zip"
    names = zipfile.ZipFile(archive).namelist()
    assert "gameplay/engine/americana.py" in names and "templates/gameplay/table.html" in names
    assert not [name for name in names if name.startswith(("django/contrib/admin", "tables/", "history/"))]
    zipfile.ZipFile(archive).extractall(tmp_path / "root")
    ran = subprocess.run(
        [sys.executable, "-I", "-S", "-c", IN_THE_BROWSER, str(tmp_path / "root")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"},
    )
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["outside"] == []
    assert "Rândul tău" in result["first"] or "Bot 2" in result["first"]
    assert "ușor" in result["first"]  # the bots' level, in Romanian, from the bundle's catalogue
    assert 'data-testid="match-over"' in result["last"]
    assert result["actions"] > 10
