"""This process's latest read of each table its pages show, shared by all of them: the first page to
hear of a change reads the table and renders what every viewer has in common, the others reuse it.

A read is kept only while the table has a page open in this process (``SharedTables.shown``): the
table's last page leaving releases it (``release``), so a process that serves tables for weeks holds
the reads of the tables shown now, never of those shown once."""

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from tables import selectors as table_selectors
from tables.models import Table

from . import selectors, services


@dataclass
class SharedTable:
    """This process's latest read of one table, and the fragments its viewers have in common."""

    table: Table
    snapshot: selectors.TableSnapshot | None
    fragments: dict[tuple, str] = field(default_factory=dict)
    told: dict[str, dict] = field(default_factory=dict)
    """By language: what every viewer's screen tells alike (``Presenter.screen``'s ``common``)."""
    events: dict[tuple[str, int], list[dict]] = field(default_factory=dict)
    """By language and how many moves back: the moves' events as every viewer is told them."""
    after_move: bool = False
    """Built from a move this process made mid-round (``SharedTables.advance``): the screens it makes
    read only what the read holds, never the database, so they may be rendered on the event loop."""

    @property
    def version(self) -> int:
        return self.snapshot.version if self.snapshot else 0

    @cached_property
    def positions(self) -> dict[int, int]:
        """Each seated person's seat, by user id: every viewer's update and every move asks."""
        return selectors.seat_positions(self.table.seats.all())


class SharedTables:
    """Every seat of a table hears of the same change; the first one to handle it reads the table
    and renders the common fragments, the others reuse them. Safe across the worker threads: one
    read per table at a time, so a table's seats wait for one read instead of making four.

    Bounded twice: a read (and its table's lock) is kept only for a table ``shown`` says has a page
    here, and never more than ``size`` of them (the least recently used go first)."""

    def __init__(self, size: int = 512, shown: Callable[[int], bool] = lambda _table_id: True) -> None:
        self.size = size
        self.shown = shown
        """Whether the table has a page open in this process (set by the table's socket)."""
        self.entries: OrderedDict[int, SharedTable] = OrderedDict()
        self.locks: dict[int, threading.Lock] = {}
        self.lock = threading.Lock()

    def release(self, table_id: int) -> None:
        """The table's last page here left: its read and its lock go (a read under way for it is not
        kept either, as ``shown`` no longer says it has a page)."""
        with self.lock:
            self.entries.pop(table_id, None)
            self.locks.pop(table_id, None)

    def held(self) -> dict[str, int]:
        """How many tables this process holds a read and a lock of (for ``config.holdings``)."""
        with self.lock:
            return {"reads": len(self.entries), "locks": len(self.locks)}

    def latest(self, table_id: int) -> SharedTable | None:
        """The newest read of the table this process holds (read now if it holds none)."""
        with self.lock:
            entry = self.entries.get(table_id)
        return entry if entry is not None else self.get(table_id, None)

    def held_after_move(self, table_id: int, version: int) -> SharedTable | None:
        """The read this process holds when a move made here brought the table to ``version`` or
        past it."""
        with self.lock:
            entry = self.entries.get(table_id)
        return entry if entry is not None and entry.after_move and entry.version >= version else None

    def check_all(self, table_ids: list[int]) -> dict[int, int]:
        """The version of each table as this process holds it, checked against the database in one
        query and read anew where behind: news lost while the channel layer was away (a Redis
        restart) is caught up with one read per table, not one per viewer."""
        current = selectors.match_versions(table_ids)
        latest = {}
        for table_id in table_ids:
            with self.lock:
                held = self.entries.get(table_id)
            held_match = (held.snapshot.match.pk, held.version) if held and held.snapshot else None
            if held is None or current.get(table_id) != held_match:
                held = self.get(table_id, None)
            if held is not None:
                latest[table_id] = held.version
        return latest

    def get(self, table_id: int, version: int | None, *, match_only: bool = False) -> SharedTable | None:
        """The table as of ``version`` or later, read anew when this process holds an older version
        or another match's (a new match always announces itself as a change to the table), or when
        ``version`` is None (a change to the table itself, a new connection). When only the match
        moved on from the version held (``match_only``), only the match is read again.

        News older than the read held (it waited in a busy process's queue while a later move was
        made here) is answered with that read: every viewer is shown the newest table anyway, and
        reading the table again for each late message would make a busy process busier still."""
        with self.lock:
            table_lock = self.locks.setdefault(table_id, threading.Lock())
        with table_lock:
            held = self.entries.get(table_id)
            if held is not None and version is not None and held.version >= version:
                entry = held
            elif held is not None and held.snapshot and match_only and held.version == version - 1:
                entry = SharedTable(table=held.table, snapshot=selectors.snapshot_advanced(held.snapshot))
            else:
                table = table_selectors.table_detail(table_id=table_id)
                entry = SharedTable(table=table, snapshot=selectors.table_snapshot(table)) if table else None
        return self._keep(table_id, entry)

    def advance(self, table_id: int, moved: services.ActResult) -> None:
        """Take a move this process just made as the table's latest read when it follows the one held,
        so the move's broadcast finds the table read already (no read at all for a plain move)."""
        if moved.match is None:
            return
        with self.lock:
            if table_id not in self.entries:
                return  # nothing held to follow on from (and no lock kept for a table not held)
            table_lock = self.locks.setdefault(table_id, threading.Lock())
        with table_lock:
            held = self.entries.get(table_id)
            if held is None or held.snapshot is None or held.snapshot.match.pk != moved.match_id:
                return
            if held.version != moved.version - 1:
                return
            after = selectors.snapshot_after(held.snapshot, moved.match, moved.state, moved.move)
            entry = SharedTable(table=held.table, snapshot=after, after_move=True)
        self._keep(table_id, entry)

    def _keep(self, table_id: int, entry: SharedTable | None) -> SharedTable | None:
        with self.lock:
            if entry is None or not self.shown(table_id):
                # No such table (any more), or no page of it here now: nothing of it is kept, so
                # connecting to made-up table ids, or a read finishing after the last page left,
                # grows nothing here.
                self.entries.pop(table_id, None)
                self.locks.pop(table_id, None)
                return entry
            self.entries[table_id] = entry
            self.entries.move_to_end(table_id)
            while len(self.entries) > self.size:
                evicted, _entry = self.entries.popitem(last=False)
                self.locks.pop(evicted, None)
        return entry


SHARED_TABLES = SharedTables()
