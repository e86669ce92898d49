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
    """Ana and Ion at a public rated classic table (first to 8 points, 45 s a turn), the match started:
    private tables are casual."""
    people = [make_user("ana"), make_user("ion")]
    try:
        return rated_table_match("classic", people, {"match": "points8"}), people
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
    fragment = f"{live_server_url}/matches/{match.pk}/ratings/"
    asked: dict[int, list[int]] = {0: [], 1: []}
    pages = []
    for person, locale in zip(people, ("en-GB", "ro-RO"), strict=True):
        page = browser.new_context(locale=locale, viewport=PHONE).new_page()
        seen = asked[len(pages)]
        page.on(
            "response",
            lambda response, seen=seen: seen.append(response.status) if response.url == fragment else None,
        )
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
    # Each page asked once, after the end's news: the ratings had moved before the news went out.
    assert asked == {0: [200], 1: [200]}

    # Ion offers a rematch: Ana's sheet is redrawn with the offer and keeps the ratings it loaded,
    # never emptied to ask for them again.
    ana, ion = pages
    ion.locator("form[action$='/rematch/'] button").click()
    expect(ana.get_by_test_id("match-over").get_by_role("button", name="Join the rematch")).to_be_visible()
    expect(ana.get_by_test_id("rating-change")).to_have_text(expected)
    expect(ana.get_by_test_id("rating-changes-slot")).to_have_count(0)
    ana.screenshot(path=ARTIFACTS / "ratings-match-over-rematch-en.png")
    assert asked[0] == [200]


# --- A person's rating card and the leaderboard --------------------------------------------------------

OTHERS = 103
"""Established players rated above Ana: she is 104th, on the leaderboard's second page (100 a page)."""


def rated_history() -> dict:
    """Ana's Americana history, arranged directly (a browser test may): 14 rated matches with Ion, each
    a real match recorded as decided without playing it, and her rating change in each written as the
    ratings service writes it, three days apart over six weeks; her rating now established. And 106
    more established players, each with a rated match in the last five days: 103 above her, 3 below."""
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


PLOT_PROBLEMS = """(svg) => {
    // The drawing as the eye reads it: each dot on the line where it belongs, each label inside the
    // drawing and clear of the others (an attribute the browser cannot read puts a shape at 0).
    const problems = [];
    const line = svg.querySelector(".plot-line").points;
    const points = Array.from({length: line.numberOfItems}, (_, i) => line.getItem(i));
    const last = points[points.length - 1];
    const at = (circle) => [circle.cx.baseVal.value, circle.cy.baseVal.value];
    const [lx, ly] = at(svg.querySelector(".plot-last"));
    if (Math.abs(lx - last.x) > 0.5 || Math.abs(ly - last.y) > 0.5) {
        problems.push(`the last dot is at ${lx},${ly}, the line ends at ${last.x},${last.y}`);
    }
    const [px, py] = at(svg.querySelector(".plot-peak"));
    if (!points.some((p) => Math.abs(p.x - px) <= 0.5 && Math.abs(p.y - py) <= 0.5)) {
        problems.push(`the peak's dot at ${px},${py} is on no point of the line`);
    }
    const view = svg.viewBox.baseVal;
    const labels = [...svg.querySelectorAll("text")].map((text) => [text.textContent, text.getBBox()]);
    for (const [word, box] of labels) {
        if (box.x < view.x - 0.5 || box.y < view.y - 0.5 || box.x + box.width > view.x + view.width + 0.5
            || box.y + box.height > view.y + view.height + 0.5) {
            problems.push(`"${word}" is outside the drawing (${box.x},${box.y} ${box.width}x${box.height})`);
        }
    }
    for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++) {
            const [a, p] = labels[i], [b, q] = labels[j];
            const across = Math.min(p.x + p.width, q.x + q.width) - Math.max(p.x, q.x);
            const down = Math.min(p.y + p.height, q.y + q.height) - Math.max(p.y, q.y);
            if (across > 0.5 && down > 0.5) problems.push(`"${a}" overlaps "${b}"`);
        }
    }
    return problems;
}"""

SPILLS = r"""(selector) => {
    // What a panel holds past its own padding (on the screen, so the page-wide checks miss it), and
    // links hard to read on its background (a contrast under 4.5:1).
    const problems = [];
    const panel = document.querySelector(".panel");
    const style = getComputedStyle(panel);
    const inner = panel.getBoundingClientRect().right - parseFloat(style.paddingRight)
        - parseFloat(style.borderRightWidth);
    for (const el of panel.querySelectorAll(selector)) {
        const right = el.getBoundingClientRect().right;
        if (right > inner + 0.5) {
            problems.push(`${el.className} reaches ${right} px, the panel's inside ${inner}`);
        }
    }
    const luminance = (colour) => {
        const [r, g, b] = colour.match(/[\d.]+/g).slice(0, 3).map((v) => {
            const c = v / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ground = luminance(style.backgroundColor);
    for (const link of panel.querySelectorAll("a")) {
        const ink = luminance(getComputedStyle(link).color);
        const ratio = (Math.max(ink, ground) + 0.05) / (Math.min(ink, ground) + 0.05);
        if (ratio < 4.5) {
            problems.push(`the link "${link.textContent.trim()}" has a contrast of ${ratio.toFixed(2)}`);
        }
    }
    return problems;
}"""


def assert_phone_fit(page: Page, within_panel: str = ".history-table, .rating-card") -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert fit_problems(page) == []
    assert page.evaluate(SPILLS, within_panel) == []
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
    drawn = plot.evaluate(PLOT_PROBLEMS)
    assert not drawn, "\n".join(drawn)
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
    for name, path in (("home", "/"), ("leaderboard", "/leaderboard/?game=americana")):
        page.goto(live_server_url + path)
        expect(page.get_by_test_id("leaderboard-link")).to_be_visible()
        expect(page.get_by_test_id("profile-link")).to_have_text("ana")
        page.locator(".site-header").screenshot(path=ARTIFACTS / f"ratings-topbar-{name}-{language}.png")
        assert header_problems(page) == []
        assert fit_problems(page) == []
    page.get_by_test_id("leaderboard-link").click()
    expect(page.get_by_test_id("leaderboard")).to_be_visible()
    expect(page.get_by_test_id("leaderboard-link")).to_have_text(
        "Clasament" if language == "ro" else "Leaderboard"
    )

    # At a table the whole table is on one screen, the top bar with it: on a phone the leaderboard's
    # link waits for the match to be over elsewhere (a row of the bar is a row of the table).
    page.goto(f"{live_server_url}/tables/{table_id}/")
    live(page)
    expect(page.locator(".me-line.is-to-act")).to_be_visible()
    expect(page.get_by_test_id("leaderboard-link")).to_be_hidden()
    page.screenshot(path=ARTIFACTS / f"ratings-topbar-table-{language}.png")
    assert header_problems(page) == []
    assert_fits(page)
    context.close()
