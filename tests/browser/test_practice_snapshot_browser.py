"""Practice starts from Python's snapshot, in Chromium: the first start keeps the heap on the device,
later starts restore it (and the match plays on, both games); a snapshot another version made is
never used, and one Pyodide refuses leaves the cold start, which still plays. A reload mid-match
shows the position at once, then hands the table to Python."""

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_practice_browser import PHONE, first_visit, play_turns, ready, start, table_position

SNAPSHOT = """async () => {
    const config = JSON.parse(document.getElementById("practice-config").textContent);
    const kept = await (await caches.open(config.cache)).match(config.page + "python-snapshot");
    if (!kept) return null;
    const bytes = (await kept.arrayBuffer()).byteLength;
    return {version: kept.headers.get("x-practice-version"), bytes, current: config.version};
}"""

REPLACE_SNAPSHOT = """async ([version, garbage]) => {
    const config = JSON.parse(document.getElementById("practice-config").textContent);
    const cache = await caches.open(config.cache);
    const key = config.page + "python-snapshot";
    const bytes = garbage ? new Uint8Array(4096).fill(7) : await (await cache.match(key)).arrayBuffer();
    await cache.put(key, new Response(bytes, {headers: {"x-practice-version": version ?? config.version}}));
}"""


def booted_from(page: Page) -> str:
    ready(page, "en-GB")
    return page.get_by_test_id("practice").get_attribute("data-boot-from")


def snapshot_kept(page: Page) -> dict:
    expect(page.get_by_test_id("practice")).to_have_attribute(
        "data-snapshot-kept",
        page.evaluate("() => JSON.parse(document.getElementById('practice-config').textContent).version"),
        timeout=60_000,
    )
    return page.evaluate(SNAPSHOT)


@pytest.mark.django_db(transaction=True)
def test_practice_starts_from_its_snapshot_and_never_from_another_versions_or_a_broken_one(
    browser: Browser, live_server_url: str
):
    context = browser.new_context(locale="en-GB", viewport=PHONE)
    page = first_visit(context, live_server_url, "en-GB")
    assert page.get_by_test_id("practice").get_attribute("data-boot-from") == "cold"
    kept = snapshot_kept(page)
    assert kept["version"] == kept["current"] and kept["bytes"] > 10_000_000

    context.set_offline(True)
    page.reload()
    assert booted_from(page) == "snapshot"
    start(page, "classic", "2")  # a game the warm-up never dealt: its modules load after the restore
    play_turns(page, 2)
    before = table_position(page)
    page.reload()
    # The position is drawn from the page's own copy at once, for looking only, until Python has it.
    expect(page.locator("#practice-table .hand .card").first).to_be_visible(timeout=5_000)
    assert booted_from(page) == "snapshot"
    expect(page.locator("#practice-table")).not_to_have_attribute("inert", "")
    assert table_position(page) == before
    play_turns(page, 1)

    # Another version's snapshot (as a device keeps one until the new version's first start) is
    # thrown away unused: the start is cold, and a snapshot of this version replaces it.
    page.evaluate(REPLACE_SNAPSHOT, ["0ld0ld0ld0ld", False])
    page.reload()
    assert booted_from(page) == "cold"
    kept = snapshot_kept(page)
    assert kept["version"] == kept["current"]
    play_turns(page, 1)

    # One Pyodide refuses to start from: the start falls back to cold and the match goes on; the
    # device asks for no more snapshots of this version.
    page.evaluate(REPLACE_SNAPSHOT, [None, True])
    page.reload()
    assert booted_from(page) == "cold"
    expect(page.locator("#practice-table")).not_to_have_attribute("inert", "")
    play_turns(page, 1)
    page.wait_for_timeout(1000)
    assert page.evaluate(SNAPSHOT) is None
    assert page.evaluate("() => localStorage.getItem('practice-snapshot-refused')") == kept["current"]
    context.close()
