"""A process's live pages by key (a table, a person, a lobby filter), with the process's channel in one
channel-layer group per key for as long as a page of that key is here.

Plain Python: the channel layer is whatever has ``group_add`` and ``group_discard``. Joining and leaving
a key's group are waits, and pages come and go during them; the one subtle case is said once, here:
the last page of a key leaves, the group is being left, and a page of the same key arrives meanwhile.
"""

from collections.abc import Callable, Hashable, Iterator
from typing import Any


class KeyedPages[Key: Hashable, Page: Hashable]:
    """Pages by key. ``group_of`` names a key's group (None: the key has none, its pages hear the
    process's other groups only); ``channel`` is the process's channel now (it changes when the process
    listens anew)."""

    def __init__(self, group_of: Callable[[Key], str | None], channel: Callable[[], str]) -> None:
        self.group_of = group_of
        self.channel = channel
        self.by_key: dict[Key, set[Page]] = {}

    def __iter__(self) -> Iterator[Page]:
        return iter([page for pages in self.by_key.values() for page in pages])

    def __contains__(self, key: object) -> bool:
        return key in self.by_key

    def keys(self) -> list[Key]:
        return list(self.by_key)

    def of(self, key: Key) -> list[Page]:
        """The key's pages, as a list a caller may walk while pages come and go."""
        return list(self.by_key.get(key, ()))

    def groups(self) -> list[str]:
        """The groups of every key with a page here."""
        return [group for key in self.by_key if (group := self.group_of(key)) is not None]

    def clear(self) -> None:
        self.by_key = {}

    async def add(self, layer: Any, key: Key, page: Page) -> None:
        """Keep ``page`` under ``key``; the key's first page here puts the process in the key's group.
        A page whose group could not be joined is not kept."""
        first = key not in self.by_key
        self.by_key.setdefault(key, set()).add(page)
        group = self.group_of(key)
        if not first or group is None:
            return
        try:
            await layer.group_add(group, self.channel())
        except BaseException:
            self._forget(key, page)
            raise

    async def discard(self, layer: Any, key: Key, page: Page) -> None:
        """Drop ``page``; the key's last page takes the process out of the key's group. A page of the
        key arriving while the group is being left joins the group too, but its join may land before
        the leaving does: the group is joined again for it, or it would hear nothing."""
        group = self.group_of(key)
        if not self._forget(key, page) or group is None:
            return
        channel = self.channel()
        await layer.group_discard(group, channel)
        if key in self.by_key and channel == self.channel():  # a page arrived meanwhile
            await layer.group_add(group, channel)

    def _forget(self, key: Key, page: Page) -> bool:
        """Take ``page`` off its key's pages; True when it was the key's last page here."""
        pages = self.by_key.get(key)
        if pages is None or page not in pages:
            return False
        pages.discard(page)
        if pages:
            return False
        del self.by_key[key]
        return True
