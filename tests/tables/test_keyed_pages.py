"""A process's pages by key: each key's group is joined with its first page and left with its last,
and a page that arrives while its key's group is being left still hears the group."""

import asyncio

import pytest

from tables.keyed_pages import KeyedPages

pytestmark = pytest.mark.asyncio

CHANNEL = "process-channel"


class HeldLayer:
    """A channel layer whose leaving of a group waits, once started, until the test lets it finish."""

    def __init__(self) -> None:
        self.members: dict[str, set[str]] = {}
        self.leaving = asyncio.Event()
        self.may_leave = asyncio.Event()

    async def group_add(self, group: str, channel: str) -> None:
        self.members.setdefault(group, set()).add(channel)

    async def group_discard(self, group: str, channel: str) -> None:
        self.leaving.set()
        await self.may_leave.wait()
        self.members.get(group, set()).discard(channel)


def pages_by_table() -> KeyedPages[int, str]:
    return KeyedPages(lambda table_id: f"table-{table_id}", lambda: CHANNEL)


async def test_a_page_arriving_while_its_keys_group_is_left_keeps_the_group():
    layer, pages = HeldLayer(), pages_by_table()
    await pages.add(layer, 7, "first page")
    leaving = asyncio.ensure_future(pages.discard(layer, 7, "first page"))
    await layer.leaving.wait()  # the last page is gone, the group is being left
    await pages.add(layer, 7, "second page")  # joins at once: before the leaving lands
    layer.may_leave.set()
    await leaving
    assert pages.of(7) == ["second page"]
    assert layer.members["table-7"] == {CHANNEL}  # the second page hears its table


async def test_the_last_page_of_a_key_leaves_its_group_and_others_keep_theirs():
    layer, pages = HeldLayer(), pages_by_table()
    layer.may_leave.set()
    for table_id, page in ((7, "a"), (7, "b"), (8, "c")):
        await pages.add(layer, table_id, page)
    assert sorted(pages.groups()) == ["table-7", "table-8"]
    await pages.discard(layer, 7, "a")
    assert layer.members["table-7"] == {CHANNEL}  # "b" is still here
    await pages.discard(layer, 7, "b")
    await pages.discard(layer, 7, "b")  # a page leaving twice changes nothing
    assert layer.members == {"table-7": set(), "table-8": {CHANNEL}}
    assert sorted(pages) == ["c"] and 7 not in pages


async def test_a_key_without_a_group_joins_none_and_a_failed_join_keeps_no_page():
    class DownLayer(HeldLayer):
        async def group_add(self, group: str, channel: str) -> None:
            raise ConnectionError(group)

    layer = DownLayer()
    pages = KeyedPages(lambda user_id: f"person-{user_id}" if user_id is not None else None, lambda: CHANNEL)
    await pages.add(layer, None, "a visitor's page")
    assert pages.of(None) == ["a visitor's page"] and pages.groups() == []
    with pytest.raises(ConnectionError):
        await pages.add(layer, 5, "a person's page")
    assert 5 not in pages
