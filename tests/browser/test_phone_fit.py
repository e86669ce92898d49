"""Every page of the site on a 375 × 667 phone, in Romanian and in English: nothing sticks out past
the right edge, no text is cut, no table scrolls sideways, and axe-core finds no serious
accessibility violation. Each page's screenshot is kept under test-artifacts/ (fit-*.png)."""

from datetime import timedelta

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.db import connection
from django.db.models import F
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import Browser, BrowserContext, Page, expect

from gameplay import services as gameplay_services
from gameplay.engine import get_game
from gameplay.models import Match
from notifications.mail import unsubscribe_token
from tables import services as table_services
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_table_craft import PHONE, live, serious_violations
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.gameplay.helpers import live_state
from tests.history.helpers import play_out, seated_match
from tests.tournaments.conftest import entered, tournament
from tournaments.models import Kind, Tournament, Trophy

OVERFLOW = """(width) => {
    // The phone's width, not innerWidth: a mobile browser widens its layout to a page too wide for it.
    const problems = [];
    const classes = (el) => typeof el.className === "string" && el.className.trim()
        ? "." + el.className.trim().split(/\\s+/).join(".") : "";
    const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + classes(el)
        + ` "${(el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 40)}"`;
    const clipped = (el) => {
        // Drawn past the edge but cut off by a clipping ancestor that is itself on the screen.
        for (let up = el.parentElement; up; up = up.parentElement) {
            const style = getComputedStyle(up);
            if (style.overflowX !== "visible" && up.getBoundingClientRect().right <= width + 1) {
                return true;
            }
        }
        return false;
    };
    if (document.documentElement.scrollWidth > width) {
        problems.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    }
    for (const el of document.body.querySelectorAll("*")) {
        const style = getComputedStyle(el);
        const unseen = style.display === "none" || style.visibility === "hidden";
        if (unseen || el.closest(".visually-hidden, .sprite")) {
            continue;
        }
        const folded = el.closest("details");
        if (folded && !folded.open && !el.closest("summary")) {
            continue;
        }
        const box = el.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) {
            continue;
        }
        if (box.right > width + 1 && !clipped(el)) {
            problems.push(`sticks out to ${Math.round(box.right)} px: ${describe(el)}`);
        }
        if (box.left < -1 && !el.matches(".skip-link") && !clipped(el)) {
            problems.push(`sticks out on the left to ${Math.round(box.left)} px: ${describe(el)}`);
        }
        if (["auto", "scroll"].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
            problems.push(`scrolls sideways (${el.scrollWidth} in ${el.clientWidth} px): ${describe(el)}`);
        }
        if (style.textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth + 1) {
            problems.push(`text cut: ${describe(el)}`);
        }
    }
    return problems;
}"""


def bots_table(host, game: str) -> Match:
    """``host`` and three bots at a private table, the match started and ``host`` to play first."""
    table = gameplay_services.table_create(
        host=host, game=game, options={"players": 4}, turn_clock=0, is_private=True
    )
    for position in range(1, 4):
        table_services.bot_add(table_id=table.pk, by=host, position=position, level="easy")
    match = Match.objects.get(table=table)
    engine = get_game(game)
    dealt = engine.state_to_json(engine.new_match(engine.options_from_json(match.options), match.seed))
    if game == "americana":
        deal = {"dealer": 3, "hands": dealt["hands"], "pile": dealt["pile"], "stock": dealt["stock"]}
    else:
        deal = {"leader": 0, "hands": dealt["hands"], "stock": dealt["stock"]}
    state = engine.state_to_json(engine.new_match(engine.options_from_json(match.options), match.seed, deal))
    # A new version: a bot turn queued for the first deal finds the match moved on.
    Match.objects.filter(pk=match.pk).update(state=state, version=F("version") + 1, due="", due_at=None)
    return match


def at_round_over(game_name: str, people: list) -> Match:
    """A two-player match of ``people`` played by bots to the end of its first round, then held there
    (no next deal comes). A match decided in its first round or deal (a classic deal can take all
    eight points) shows no round's end: another is dealt."""
    while True:
        match = seated_match(game_name, people, {"players": 2}, private=True)
        while match.status == Match.Status.PLAYING:
            game, state = live_state(match)
            if game.awaiting_deal(state):
                Match.objects.filter(pk=match.pk).update(version=F("version") + 1, due="", due_at=None)
                return match
            play_out(match, moves=1)


def site() -> dict[str, tuple[str, str | None]]:
    """The people, tables and matches every page needs: page name -> its path and who looks at it."""
    ana, ion, eva = make_user("ana"), make_user("ion"), make_user("eva")
    try:
        played = {
            game: play_out(seated_match(game, [ana, ion], {"players": 2}, private=True))
            for game in ("americana", "classic")
        }
        running = seated_match("americana", [ana, ion], {"players": 2}, private=True)
        play_out(running, moves=6)
        rounds = {game: at_round_over(game, [ana, ion]) for game in ("americana", "classic")}
        mid = {game: bots_table(ana, game) for game in ("americana", "classic")}
        waiting = gameplay_services.table_create(
            host=ana, game="classic", options={"players": 3}, turn_clock=0, is_private=True
        )
        open_table = gameplay_services.table_create(
            host=eva, game="americana", options={"players": 4}, turn_clock=45, is_private=False
        )
        table_services.bot_add(table_id=open_table.pk, by=eva, position=1, level="hard")
        # At their own pace: a match with moves since Ana's last visit and Ion on holiday, a table waiting.
        own_pace = gameplay_services.table_create(
            host=ana, game="classic", options={"players": 2}, turn_clock=45, is_private=False, pace_hours=24
        )
        table_services.seat_take(table_id=own_pace.pk, user=ion)
        play_out(Match.objects.get(table=own_pace), moves=5)
        gameplay_services.holiday_start(user=ion, days=3)
        gameplay_services.table_create(
            host=ana, game="americana", options={"players": 3}, turn_clock=45, is_private=False, pace_hours=72
        )
        arena = tournament(status=Tournament.Status.RUNNING, starts_in=timedelta(minutes=-5))
        entered(arena, ana, points=4, matches=2, wins=2, streak=2)
        entered(arena, ion, points=2, matches=2, wins=1)
        tournament(kind=Kind.SWISS, rounds=5, minutes=15, starts_in=timedelta(hours=3))
        done = tournament(status=Tournament.Status.FINISHED, starts_in=timedelta(hours=-2))
        for place, person in enumerate((ana, ion, eva), start=1):
            entered(done, person, points=8 - 2 * place, matches=3, rank=place)
            Trophy.objects.create(
                user=person, tournament=done, place=place, points=8 - 2 * place, won_at=timezone.now()
            )
        token = default_token_generator.make_token(ana)
        uid = urlsafe_base64_encode(force_bytes(ana.pk))
    finally:
        connection.close()  # this runs in a thread of its own: its connection ends with it
    finished = played["americana"]
    anyone = {
        "login": "/accounts/login/",
        "register": "/accounts/register/",
        "password-reset": "/accounts/password/reset/",
        "password-reset-sent": "/accounts/password/reset/sent/",
        "password-reset-confirm": f"/accounts/password/reset/{uid}/{token}/",
        "password-reset-complete": "/accounts/password/reset/complete/",
        "home-visitor": "/",
        "player-page-visitor": "/players/ana/",
        "practice": "/practice/",
        "unsubscribe": f"/notifications/unsubscribe/{unsubscribe_token(ana.pk, 'your_turn')}/",
        "open-data": "/data/",
        "open-data-schema": "/data/schema/",
        "api-guide": "/api/",
    }
    ana_sees = {
        "home": "/",
        "lobby": "/tables/",
        "new-table": "/tables/new/",
        "waiting-room": f"/tables/{waiting.pk}/",
        "open-table": f"/tables/{open_table.pk}/",
        "americana-mid-match": f"/tables/{mid['americana'].table_id}/",
        "classic-mid-match": f"/tables/{mid['classic'].table_id}/",
        "own-pace-mid-match": f"/tables/{own_pace.pk}/",
        "your-turn": "/tables/your-turn/",
        "americana-round-over": f"/tables/{rounds['americana'].table_id}/",
        "classic-deal-over": f"/tables/{rounds['classic'].table_id}/",
        "americana-match-over": f"/tables/{played['americana'].table_id}/",
        "classic-match-over": f"/tables/{played['classic'].table_id}/",
        "my-matches": "/matches/",
        "americana-match-page": f"/matches/{finished.pk}/",
        "classic-match-page": f"/matches/{played['classic'].pk}/",
        "running-match-page": f"/matches/{running.pk}/",
        "replay": f"/matches/{finished.pk}/replay/?step=5",
        "classic-replay": f"/matches/{played['classic'].pk}/replay/?step=7",
        "profile": "/accounts/profile/",
        "notifications": "/notifications/",
        "password-change": "/accounts/password/change/",
        "player-page": "/players/ion/",
        "tournaments": "/tournaments/",
        "running-arena": f"/tournaments/{arena.pk}/",
        "finished-tournament": f"/tournaments/{done.pk}/",
        "api-tokens": "/api/tokens/",
    }
    return {
        **{name: (path, None) for name, path in anyone.items()},
        **{name: (path, "ana") for name, path in ana_sees.items()},
        # Ion opens Ana's invitation: he sits down in her waiting room.
        "invitation": (f"/tables/join/{waiting.invite_token}/", "ion"),
    }


def signed_in(browser: Browser, base: str, locale: str, username: str | None) -> dict:
    """A phone's stored state (its cookies), logged in as ``username`` (or nobody)."""
    context = phone(browser, locale)
    if username:
        log_in(context.new_page(), base, username)
    state = context.storage_state()
    context.close()
    return state


def phone(browser: Browser, locale: str, state: dict | None = None) -> BrowserContext:
    # The site's CSP lets only its own scripts run; the scanner is injected by the test.
    return browser.new_context(
        locale=locale, viewport=PHONE, has_touch=True, is_mobile=True, bypass_csp=True, storage_state=state
    )


def fit_problems(page: Page) -> list[str]:
    return page.evaluate(OVERFLOW, PHONE["width"])


def look_at(page: Page, name: str, language: str) -> list[str]:
    """What is wrong with the page on the phone: what sticks out or is cut, and axe's findings;
    the Scores sheet opened too where the page has one."""
    if "mid-match" in name:
        live(page)
    if name.endswith("-over"):
        expect(page.get_by_test_id("match-over" if "match" in name else "round-over")).to_be_visible()
    page.screenshot(path=ARTIFACTS / f"fit-{name}-{language}.png", full_page=True)
    found = fit_problems(page) + [f"axe: {violation}" for violation in serious_violations(page)]
    if page.get_by_test_id("scores").count():
        page.get_by_test_id("scores").locator("summary").evaluate("summary => summary.click()")
        page.screenshot(path=ARTIFACTS / f"fit-{name}-scores-{language}.png")
        found += [f"scores: {problem}" for problem in fit_problems(page)]
    return found


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", ["ro-RO", "en-GB"])
def test_every_page_fits_a_phone_and_passes_an_accessibility_scan(
    browser: Browser, live_server_url: str, locale: str
):
    language = locale[:2]
    pages = off_loop(site)
    who = {None: signed_in(browser, live_server_url, locale, None)}
    failures: dict[str, list[str]] = {}
    for name, (path, username) in pages.items():
        if username not in who:
            who[username] = signed_in(browser, live_server_url, locale, username)
        # A phone of its own for each page, as a person opening it afresh.
        context = phone(browser, locale, who[username])
        page = context.new_page()
        page.goto(live_server_url + path)
        if found := look_at(page, name, language):
            failures[name] = found
        context.close()
    assert not failures, "\n".join(
        f"{name}: {problem}" for name, found in failures.items() for problem in found
    )


def americana_for_ana() -> Match:
    try:
        return bots_table(make_user("ana"), "americana")
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_on_a_large_screen_the_cards_and_the_felt_grow_with_the_window(
    browser: Browser, live_server_url: str
):
    match = off_loop(americana_for_ana)
    page = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 800}).new_page()
    log_in(page, live_server_url, "ana")
    page.goto(f"{live_server_url}/tables/{match.table_id}/")
    live(page)
    widths = []
    for width, height in ((1280, 800), (1920, 1080), (2560, 1440)):
        page.set_viewport_size({"width": width, "height": height})
        scroll = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        assert scroll == [width, height]  # the whole table on the screen, nothing to scroll
        assert page.get_by_test_id("play").bounding_box()["width"] > 0.9 * width  # no wasted felt
        widths.append(page.locator("#hand-area .hand-card .card").first.bounding_box()["width"])
        page.screenshot(path=ARTIFACTS / f"fit-table-{width}x{height}-en.png")
    assert widths[0] >= 70 and widths[0] < widths[1] < widths[2]
