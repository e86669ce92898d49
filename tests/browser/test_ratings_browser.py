"""Rated play in the browser: two people finish a rated match by a click and both see what it did to
their ratings; a person's rating card with its plot, the leaderboard and the top bar with its
Leaderboard link on a 375 × 667 phone, in Romanian and in English.
Screenshots: test-artifacts/ratings-*.png."""

import random
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from accounts.models import User
from gameplay.models import Match
from ratings.models import RatedMatch, Rating, RatingChange
from ratings.templatetags.rating_tags import signed
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_phone_fit import fit_problems, phone, signed_in
from tests.browser.test_table_craft import PHONE, assert_fits, live, serious_violations, table_with_bots
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.history.helpers import mark_over
from tests.ratings.helpers import one_move_from_the_end, rated_table_match

LOCALES = ["ro-RO", "en-GB"]


# --- The end of a rated match, live ------------------------------------------------------------------


def rated_pair() -> tuple[Match, list[User]]:
    """Ana and Ion at a private rated classic table (first to 8 points, no turn clock), the match started."""
    people = [make_user("ana"), make_user("ion")]
    try:
        return rated_table_match("classic", people, {"match": "points8"}, private=True), people
    finally:
        connection.close()  # this runs in a thread of its own: its connection ends with it


def to_the_last_move(match: Match) -> tuple[int, dict]:
    try:
        return one_move_from_the_end(match)
    finally:
        connection.close()


def make_move(page: Page, action: dict) -> None:
    """The move ``action`` by clicks, as a person makes it: a card and Play (a seven names its suit
    instead), or the action's own button."""
    if action["type"] == "play":
        page.locator(".hand-card", has=page.locator(f"input[value='{action['card']}']")).click()
        if "suit" in action:
            page.locator(f".suit-picker button[value='{action['suit']}']").click()
        else:
            page.locator(".play-button").click()
    else:
        page.get_by_test_id("actions").locator(f"button[name=type][value='{action['type']}']").click()


@pytest.mark.django_db(transaction=True)
def test_both_players_see_their_rating_changes_when_the_last_move_is_clicked(
    browser: Browser, live_server_url: str
):
    match, people = off_loop(rated_pair)
    pages = []
    for person, locale in zip(people, ("en-GB", "ro-RO"), strict=True):
        page = browser.new_context(locale=locale, viewport=PHONE).new_page()
        log_in(page, live_server_url, person.username)
        page.goto(f"{live_server_url}/tables/{match.table_id}/")
        live(page)
        pages.append(page)

    # The bulk of the match on the server, both pages open and following it over their sockets.
    seat, action = off_loop(to_the_last_move, match)
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    for page in pages:
        expect(page.locator("#turn input[name=version]")).to_have_value(str(match.version), timeout=30_000)
    mover = pages[seat]
    expect(mover.locator(".me-line.is-to-act")).to_be_visible()
    for page in pages:
        expect(page.get_by_test_id("rating-changes-slot")).to_have_count(0)
    make_move(mover, action)

    for page in pages:
        expect(page.get_by_test_id("match-over")).to_be_visible(timeout=15_000)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    changes = list(RatingChange.objects.filter(match=match).order_by("seat"))
    assert [change.user_id for change in changes] == [person.pk for person in people]
    winners = match.result["winners"]
    if winners:  # a decided match: the winner gains what the loser loses (two newcomers alike)
        won, lost = changes[winners[0]], changes[1 - winners[0]]
        assert won.change > 0 > lost.change
    # "ana +79 → 1579?": the "?" while provisional, a true minus sign for a loss.
    expected = [
        f"{person.username} {signed(change.change)} → {change.after}{'' if change.established else '?'}"
        for person, change in zip(people, changes, strict=True)
    ]
    assert any("\N{MINUS SIGN}" in line for line in expected) or not winners
    for page, language in zip(pages, ("en", "ro"), strict=True):
        shown = page.get_by_test_id("match-over").get_by_test_id("rating-changes")
        # The lazy slot has asked for the fragment and been replaced by it.
        expect(shown.get_by_test_id("rating-change")).to_have_text(expected, timeout=15_000)
        expect(page.get_by_test_id("rating-changes-slot")).to_have_count(0)
        if winners:
            expect(shown.locator(f"[data-seat='{winners[0]}'] .rating-move")).to_have_class(
                re.compile(r"\bis-up\b")
            )
            expect(shown.locator(f"[data-seat='{1 - winners[0]}'] .rating-move")).to_have_class(
                re.compile(r"\bis-down\b")
            )
        page.screenshot(path=ARTIFACTS / f"ratings-match-over-{language}.png")
        shown.scroll_into_view_if_needed()
        page.screenshot(path=ARTIFACTS / f"ratings-match-over-changes-{language}.png")
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


# --- A person's rating card and the leaderboard --------------------------------------------------------

OTHERS = 103
"""Established players rated above Ana: she is 104th, on the leaderboard's second page (100 a page)."""


def rated_history() -> dict:
    """Ana's Americana history, arranged directly (a browser test may): 14 rated matches with Ion, each
    a real match recorded as decided without playing it, and her rating change in each written as the
    ratings service writes it, three days apart over six weeks; her rating now established. And 106
    more established players active today, 103 above her and 3 below."""
    ana, ion = make_user("ana"), make_user("ion")
    try:
        rng = random.Random(7)
        now = timezone.now()
        start = now - timedelta(days=42)
        shown, sigma = 1500, 8.33
        rows, afters = [], []
        for index in range(14):
            match = rated_table_match("americana", [ana, ion], private=True)
            won = rng.random() < 0.6
            mark_over(match, [0] if won else [1])
            at = start + timedelta(days=3 * index)
            Match.objects.filter(pk=match.pk).update(started_at=at - timedelta(minutes=20), finished_at=at)
            # Rated, as the live update records it: the periodic catch-up leaves it alone.
            RatedMatch.objects.create(match=match, game="americana", rated_at=at)
            change = rng.randint(12, 45) * (1 if won else -1)
            after = shown + change
            rows.append(
                RatingChange(
                    match=match,
                    user=ana,
                    game="americana",
                    seat=0,
                    place=1 if won else 2,
                    mu_before=25 + (shown - 1500) / 30,
                    sigma_before=sigma,
                    mu_after=25 + (after - 1500) / 30,
                    sigma_after=sigma * 0.93,
                    before=shown,
                    after=after,
                    change=change,
                    established=index >= 9,
                    at=at,
                )
            )
            shown, sigma = after, sigma * 0.93
            afters.append(after)
        RatingChange.objects.bulk_create(rows)
        Rating.objects.create(
            user=ana,
            game="americana",
            mu=25 + (shown - 1500) / 30,
            sigma=sigma,
            shown=shown,
            peak=max(afters),
            matches=14,
            established=True,
            last_played_at=rows[-1].at,
        )
        others = User.objects.bulk_create(User(username=f"player{index:03}") for index in range(OTHERS + 3))
        # Above Ana for the first 103, best first, below her for the last three.
        above = [shown + 1 + (OTHERS - index) * 3 for index in range(OTHERS)]
        board = [*above, shown - 5, shown - 10, shown - 15]
        Rating.objects.bulk_create(
            Rating(
                user=other,
                game="americana",
                shown=board[index],
                matches=10 + index % 40,
                established=True,
                last_played_at=now - timedelta(hours=index),
            )
            for index, other in enumerate(others)
        )
        return {"shown": shown, "peak": max(afters), "points": len(afters), "place": OTHERS + 1}
    finally:
        connection.close()


def assert_phone_fit(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert fit_problems(page) == []
    assert serious_violations(page) == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", LOCALES)
def test_the_rating_card_the_plot_and_the_leaderboard_fit_a_phone(
    browser: Browser, live_server_url: str, locale: str
):
    language = locale[:2]
    facts = off_loop(rated_history)
    context = phone(browser, locale, signed_in(browser, live_server_url, locale, "ana"))
    page = context.new_page()

    page.goto(f"{live_server_url}/players/ana/")
    card = page.get_by_test_id("profile-ratings").locator("[data-testid=rating-card][data-game=americana]")
    expect(card.get_by_test_id("rating-number")).to_have_text(str(facts["shown"]))  # established: no "?"
    expect(card.locator(".rating-facts")).to_contain_text(str(facts["peak"]))
    expect(card.locator(".rating-facts a")).to_contain_text(str(facts["place"]))
    plot = card.get_by_test_id("rating-plot")
    expect(plot).to_be_visible()
    # The line starts at 1500 and has a point for each of the 14 matches.
    assert len(plot.locator(".plot-line").get_attribute("points").split()) == facts["points"] + 1
    box = plot.bounding_box()
    assert box["width"] > 250 and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    expect(card.locator("figcaption tbody tr")).to_have_count(facts["points"])
    classic = page.get_by_test_id("profile-ratings").locator("[data-testid=rating-card][data-game=classic]")
    expect(classic.get_by_test_id("rating-number")).to_have_text("1500?")
    page.screenshot(path=ARTIFACTS / f"ratings-profile-{language}.png", full_page=True)
    card.scroll_into_view_if_needed()
    page.screenshot(path=ARTIFACTS / f"ratings-profile-card-{language}.png")
    assert_phone_fit(page)

    page.goto(f"{live_server_url}/matches/")
    expect(page.get_by_test_id("row-rating")).to_have_count(facts["points"])
    page.screenshot(path=ARTIFACTS / f"ratings-my-matches-{language}.png")
    assert_phone_fit(page)

    # The first page: the best 100, and Ana's own place below them.
    page.goto(f"{live_server_url}/leaderboard/?game=americana")
    board = page.get_by_test_id("leaderboard")
    expect(board.get_by_test_id("board-row")).to_have_count(100)
    expect(board.get_by_test_id("board-row").first).to_contain_text("player000")
    expect(board.get_by_test_id("my-place")).to_contain_text(f"{facts['place']} ({facts['shown']})")
    expect(board.locator("tr.is-me")).to_have_count(0)
    page.screenshot(path=ARTIFACTS / f"ratings-leaderboard-{language}.png")
    assert_phone_fit(page)

    # The second page holds her row, marked as hers.
    board.locator(".pagination a[rel=next]").click()
    expect(page).to_have_url(re.compile(r"page=2$"))
    expect(board.get_by_test_id("board-row")).to_have_count(OTHERS + 4 - 100)
    mine = board.locator("tr.is-me")
    expect(mine).to_have_attribute("aria-current", "true")
    expect(mine.locator("td")).to_have_text([str(facts["place"]), "ana", str(facts["shown"]), "14"])
    expect(board.get_by_test_id("my-place")).to_have_count(0)
    page.screenshot(path=ARTIFACTS / f"ratings-leaderboard-page2-{language}.png", full_page=True)
    assert_phone_fit(page)
    context.close()


# --- The top bar --------------------------------------------------------------------------------------


def header_problems(page: Page) -> list[str]:
    """What is wrong with the top bar on the phone: a link or button past the edge, broken over two
    lines, or over another one."""
    return page.evaluate(
        """(width) => {
            const problems = [];
            const items = [...document.querySelectorAll(
                ".site-header .brand, .site-header .nav-link, .site-header button"
            )];
            const boxes = items.map((el) => [el, el.getBoundingClientRect()]);
            const name = (el) => `"${el.textContent.trim().replace(/\\s+/g, " ")}"`;
            for (const [el, box] of boxes) {
                if (box.left < 0 || box.right > width + 0.5) {
                    problems.push(`${name(el)} is past the edge (${box.left}-${box.right})`);
                }
                const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 20;
                if (el.getClientRects().length > 1 || el.scrollHeight > 2 * lineHeight + 2) {
                    problems.push(`${name(el)} breaks over two lines`);
                }
            }
            for (let i = 0; i < boxes.length; i++) {
                for (let j = i + 1; j < boxes.length; j++) {
                    const [a, p] = boxes[i], [b, q] = boxes[j];
                    if (a.contains(b) || b.contains(a)) continue;
                    const across = Math.min(p.right, q.right) - Math.max(p.left, q.left);
                    const down = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
                    if (across > 1 && down > 1) problems.push(`${name(a)} overlaps ${name(b)}`);
                }
            }
            return problems;
        }""",
        PHONE["width"],
    )


def header_layout(page: Page) -> dict:
    return page.evaluate(
        """() => {
            const header = document.querySelector(".site-header").getBoundingClientRect();
            const tops = [...document.querySelectorAll(".site-header .nav-link, .site-header button")]
                .map((el) => Math.round(el.getBoundingClientRect().top));
            return {height: Math.round(header.height), rows: new Set(tops).size};
        }"""
    )


def ana_at_a_table() -> int:
    try:
        table, _ana = table_with_bots("classic", 2)
        return table.pk
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("locale", LOCALES)
def test_the_top_bar_with_the_leaderboard_link_fits_a_phone(
    browser: Browser, live_server_url: str, locale: str
):
    language = locale[:2]
    table_id = off_loop(ana_at_a_table)
    context = phone(browser, locale, signed_in(browser, live_server_url, locale, "ana"))
    page = context.new_page()
    layouts = {}
    for name, path in (("home", "/"), ("leaderboard", "/leaderboard/?game=americana")):
        page.goto(live_server_url + path)
        expect(page.get_by_test_id("leaderboard-link")).to_be_visible()
        expect(page.get_by_test_id("profile-link")).to_have_text("ana")
        page.locator(".site-header").screenshot(path=ARTIFACTS / f"ratings-topbar-{name}-{language}.png")
        assert header_problems(page) == []
        assert fit_problems(page) == []
        layouts[name] = header_layout(page)
    page.get_by_test_id("leaderboard-link").click()
    expect(page.get_by_test_id("leaderboard")).to_be_visible()
    # Romanian reads "Clasament" once the catalogue has it; until then the English shows.
    expect(page.get_by_test_id("leaderboard-link")).to_have_text(
        re.compile("^(Clasament|Leaderboard)$" if language == "ro" else "^Leaderboard$")
    )

    # At a table the whole table is on one screen, the top bar with it.
    page.goto(f"{live_server_url}/tables/{table_id}/")
    live(page)
    expect(page.locator(".me-line.is-to-act")).to_be_visible()
    page.screenshot(path=ARTIFACTS / f"ratings-topbar-table-{language}.png")
    assert header_problems(page) == []
    assert_fits(page)
    layouts["table"] = header_layout(page)
    print(language, layouts)
    context.close()
