"""The table tells a move from its events, in a real Chromium: another seat's card flies from that
seat to the pile, its draw flies face down from the stock to the seat, both are announced (with or
without motion), and the update leaves what the player had set up alone: an open score sheet, the
picked card, the keyboard's focus, the very same card elements."""

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_table_craft import americana_pair, card, focused_card, live

RECORD_MOTION = """
    // Each animation an update starts, as it starts: what it moves and where from.
    window.motions = [];
    document.addEventListener("table:updated", () => queueMicrotask(() => {
        for (const animation of document.getAnimations()) {
            if (animation instanceof CSSAnimation || animation instanceof CSSTransition) continue;
            const element = animation.effect.target;
            window.motions.push({
                code: element.dataset.code ?? null,
                motion: element.dataset.motion ?? null,
                ghost: element.classList.contains("ghost"),
                from: animation.effect.getKeyframes()[0].transform,
            });
        }
    }));
"""
TRANSLATE = re.compile(r"translate\((-?[\d.e-]+)px, (-?[\d.e-]+)px\)")


def recording(page: Page) -> None:
    page.add_init_script(RECORD_MOTION)
    page.reload()
    live(page)


def motions(page: Page) -> list[dict]:
    return page.evaluate("window.motions")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("motion", "moves"), [("no-preference", True), ("reduce", False)])
def test_another_seats_move_is_told_from_its_events_and_keeps_the_players_setup(
    browser: Browser, live_server_url: str, motion: str, moves: bool
):
    hands = [["9H", "KC", "3D", "4D", "5H"], ["9S", "10C", "QC", "5C", "2C"]]
    _match, (ana, ion) = americana_pair(browser, live_server_url, hands, "6H", motion=motion)
    recording(ana)
    recording(ion)

    # Ion, waiting, opens the scores and picks the nine of spades by keyboard.
    ion.get_by_test_id("scores").locator("summary").click()
    ion.locator("#hand-area input[value='9S']").focus()
    ion.keyboard.press("Enter")
    expect(card(ion, "9S").locator("input")).to_be_checked()
    ion.evaluate("document.getElementById('hand-9S').keptAcrossUpdates = true")

    # Ana plays: on Ion's screen the nine of hearts comes from Ana's seat, above the pile.
    card(ana, "9H").click()
    ana.locator(".play-button").click()
    expect(ion.get_by_test_id("pile").locator(".card")).to_have_attribute("data-code", "9H")
    expect(ion.locator(".me-line.is-to-act")).to_be_visible()
    expect(ion.get_by_test_id("announcer")).to_contain_text("ana a jucat nouă de inimă roșie.")
    played = [entry for entry in motions(ion) if entry["motion"] == "played"]
    if moves:
        assert [entry["code"] for entry in played] == ["9H"]
        _dx, dy = map(float, TRANSLATE.search(played[0]["from"]).groups())
        assert dy < 0  # Ana's seat is above the pile on Ion's screen
    else:
        assert motions(ion) == []
        expect(ion.locator("[data-motion]")).to_have_count(0)

    # What Ion had set up is as he left it: the same elements, still open, picked and focused.
    expect(ion.get_by_test_id("scores")).to_have_attribute("open", "")
    expect(card(ion, "9S").locator("input")).to_be_checked()
    assert focused_card(ion) == "9S"
    assert ion.evaluate("document.getElementById('hand-9S').keptAcrossUpdates") is True

    # Ion draws instead: on Ana's screen a card back flies from the stock to Ion's seat.
    ion.get_by_test_id("actions").locator("button[value=draw]").click()
    expect(ana.locator(".me-line.is-to-act")).to_be_visible()
    expect(ana.get_by_test_id("announcer")).to_contain_text("ion drew a card.")
    if moves:
        expect(ana.locator("#opponents [data-seat='1'][data-motion='drew']")).to_have_count(1)
        assert any(entry["ghost"] for entry in motions(ana))
    else:
        assert motions(ana) == []
    assert ana.script_errors == [] and ion.script_errors == []
