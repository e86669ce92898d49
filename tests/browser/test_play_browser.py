"""Two people play in two browsers over websockets, by the buttons the rules allow."""

from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from bench.management.commands.practicebench import take_turn
from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match
from tables import services as table_services
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS
from tests.factories import make_user

PHONE = {"width": 375, "height": 667}


def seated_pair(game: str, options: dict):
    users = [make_user("ana"), make_user("ion")]
    table = gameplay_services.table_create(
        host=users[0], game=game, options={"players": 2, **options}, turn_clock=0, is_private=True
    )
    table_services.seat_take(table_id=table.pk, user=users[1], token=table.invite_token)
    return table, users


def two_players(browser: Browser, base: str, game: str, options: dict, locales=("en-GB", "ro-RO")):
    table, users = off_loop(seated_pair, game, options)
    pages = []
    for user, locale in zip(users, locales, strict=True):
        page = browser.new_context(locale=locale, viewport=PHONE).new_page()
        log_in(page, base, user.username)
        page.goto(f"{base}/tables/{table.pk}/")
        pages.append(page)
    return Match.objects.get(table=table), pages


def rig(match: Match, deal: dict | None = None, **fields) -> None:
    """Replace the deal with a known one (as the scenario runner deals) and set state fields."""
    game = get_game(match.game)
    state = game.state_to_json(game.new_match(game.options_from_json(match.options), match.seed, deal))
    Match.objects.filter(pk=match.pk).update(state={**state, **fields})


def play_until_over(pages: list[Page], turns: dict[Page, Callable[[Page], None]]) -> None:
    """Whoever is to act plays their turn the way ``turns`` says, until every page shows the match over."""
    for _turn in range(600):
        if any(page.get_by_test_id("match-over").count() for page in pages):
            break
        mover = next((page for page in pages if page.locator(".me-line.is-to-act").count()), None)
        if mover is None:
            pages[0].wait_for_timeout(150)
            continue
        version = mover.locator("input[name=version]").input_value()
        turns[mover](mover)
        expect(mover.locator("input[name=version]")).not_to_have_value(version, timeout=10_000)
    for page in pages:
        expect(page.get_by_test_id("match-over")).to_be_visible(timeout=15_000)


@pytest.mark.django_db(transaction=True)
def test_two_people_play_americana_to_the_end(browser: Browser, live_server_url: str):
    match, pages = two_players(browser, live_server_url, "americana", {"target": 101})
    # Both near the target, so the round being played decides the match.
    rig(match, totals=[88, 95])
    for page in pages:
        page.reload()
    play_until_over(pages, dict.fromkeys(pages, take_turn))
    pages[0].screenshot(path=ARTIFACTS / "americana-match-over-en.png", full_page=True)
    pages[1].screenshot(path=ARTIFACTS / "americana-match-over-ro.png", full_page=True)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.rounds.count() >= 1
    assert match.moves.filter(actor="player").count() > 2


def rest_of_deck(ranks: str, held: list[str], jokers: bool = False) -> list[str]:
    codes = [rank + suit for rank in ranks.split() for suit in "SHDC"]
    return [code for code in codes if code not in held]


@pytest.mark.django_db(transaction=True)
def test_classic_deal_with_a_continuation_and_a_take(browser: Browser, live_server_url: str):
    match, pages = two_players(browser, live_server_url, "classic", {"match": "points8"})
    hands = [["9H", "7C", "8D", "JD"], ["9S", "AS", "8S", "JS"]]
    held = hands[0] + hands[1]
    off_loop(rig, match, {"leader": 0, "hands": hands, "stock": rest_of_deck("7 8 9 10 J Q K A", held)})
    ana, ion = pages
    for page in pages:
        page.reload()

    expect(ana.locator(".me-line.is-to-act")).to_be_visible()
    ana.locator(".hand-card", has=ana.locator("input[value='9H']")).click()
    ana.locator(".play-button").click()
    expect(ion.locator(".me-line.is-to-act")).to_be_visible()
    ion.locator(".hand-card", has=ion.locator("input[value='9S']")).click()
    ion.locator(".play-button").click()

    # The trick is cut: the leader may fight on with a cutting card, or end it.
    expect(ana.locator(".play-button")).to_have_text("Continue")
    expect(ana.get_by_role("button", name="End the trick")).to_be_visible()
    expect(ana.get_by_test_id("center")).to_contain_text("The trick is ion's for now.")
    ana.locator(".hand-card", has=ana.locator("input[value='7C']")).click()
    ana.locator(".play-button").click()
    expect(ion.locator(".me-line.is-to-act")).to_be_visible()
    ion.locator(".hand-card", has=ion.locator("input[value='AS']")).click()
    ion.locator(".play-button").click()

    # The seven cut last, so the trick (with the ace) is the leader's: it waits to be taken.
    expect(ana.get_by_role("button", name="Take the trick")).to_be_visible()
    expect(ana.get_by_test_id("trick").locator(".trick-card")).to_have_count(4)
    ana.screenshot(path=ARTIFACTS / "classic-take-en.png", full_page=True)
    ion.screenshot(path=ARTIFACTS / "classic-take-ro.png", full_page=True)
    ana.get_by_role("button", name="Take the trick").click()
    expect(ana.get_by_test_id("trick").locator(".trick-card")).to_have_count(0)
    expect(ana.get_by_test_id("hand").locator(".hand-card")).to_have_count(4)
    match.refresh_from_db()
    state = match.state
    assert state["hands"][0] and len(state["hands"][0]) == 4
    assert match.moves.count() == 5


@pytest.mark.django_db(transaction=True)
def test_seven_asks_for_the_suit_and_an_illegal_card_is_refused(browser: Browser, live_server_url: str):
    match, pages = two_players(browser, live_server_url, "americana", {}, locales=("ro-RO", "en-GB"))
    hands = [["7S", "KC", "3D", "4D", "5D"], ["8S", "9C", "10C", "QC", "5C"]]
    held = [*hands[0], *hands[1], "6H"]
    deal = {
        "dealer": 1,
        "hands": hands,
        "pile": ["6H"],
        "stock": rest_of_deck("2 3 4 5 6 7 8 9 10 J Q K A", held),
    }
    off_loop(rig, match, deal)
    ana, ion = pages
    for page in pages:
        page.reload()

    expect(ana.locator(".me-line.is-to-act")).to_be_visible()
    king = ana.locator(".hand-card", has=ana.locator("input[value='KC']"))
    # Refused on the device, at once: never picked, Play stays shut (forced: it is aria-disabled).
    king.click(force=True)
    expect(ana.locator("#notice")).to_contain_text("Cartea aceasta nu merge peste șase de inimă roșie.")
    expect(ana.locator(".play-button")).to_be_disabled()
    expect(king).to_be_visible()
    expect(ana.get_by_test_id("hand").locator(".hand-card")).to_have_count(5)

    ana.locator(".hand-card", has=ana.locator("input[value='7S']")).click()
    expect(ana.locator(".play-button")).to_be_hidden()
    expect(ana.locator(".suit-picker")).to_be_visible()
    ana.screenshot(path=ARTIFACTS / "seven-suit-prompt-ro.png", full_page=True)
    ana.locator(".suit-picker button[value='D']").click()
    expect(ion.get_by_test_id("suit-in-force")).to_contain_text("diamonds")
    expect(ion.get_by_test_id("pile").get_by_role("img")).to_have_attribute(
        "aria-label", "7 of spades", timeout=5_000
    )
    ion.screenshot(path=ARTIFACTS / "after-seven-en.png", full_page=True)
