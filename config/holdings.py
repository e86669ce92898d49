"""What a server process holds for the tables, matches, connections and people it serves, counted.

Every structure here falls back as its owner goes (a page closing, a table's last page here
leaving), and those that could still fill are bounded by design besides (``SharedTables.size``,
``MarkupMemo.size``, ``MAX_ECHOES``). ``/metrics`` reports the counts of the process answering
(``septica_process_held``), which is how ``manage.py soak`` and the churn test read a running
Daphne's: once the pages close, every count is back where it started.
"""

from channels.layers import channel_layers

from gameplay.consumers import TABLE_NEWS
from gameplay.frames import MARKUP
from gameplay.presence import OPEN_HERE
from gameplay.shared_tables import SHARED_TABLES
from social.consumers import PERSON_NEWS
from tables.consumers import LOBBY_NEWS
from tournaments.consumers import TOURNAMENT_NEWS


def held_here() -> dict[str, int]:
    """Each structure's count in this process, by a name saying whose it is."""
    held = {
        f"{news.prefix} {name}": count
        for news in (TABLE_NEWS, LOBBY_NEWS, PERSON_NEWS, TOURNAMENT_NEWS)
        for name, count in news.held().items()
    }
    held.update({f"shared table {name}": count for name, count in SHARED_TABLES.held().items()})
    held["seats open here"] = len(OPEN_HERE.seats)
    held["markup memo"] = len(MARKUP.entries)
    held["markup memo owners"] = len(MARKUP.owned)
    held["channel layer groups"] = sum(len(vars(layer).get("groups", ())) for layer in _loop_layers())
    return held


def _loop_layers() -> list:
    """The channel layer's per-event-loop layers this process has made (the pub/sub layer's; the
    in-memory layer of the embedded mode counts as its own)."""
    layers = []
    for layer in list(channel_layers.backends.values()):
        per_loop = vars(layer).get("_layers")
        layers += [layer] if per_loop is None else list(per_loop.values())
    return layers
