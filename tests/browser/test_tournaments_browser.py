"""A whole short arena in Chromium on a 375 × 667 phone: three people (two reading Romanian, one English)
join from the tournament's page, their tables open by themselves, each match ends by a click and the
table page takes its players back to the tournament, the standing shows the points (a win is worth 2),
until each has played two matches; then the arena ends, its podium is on the page and the winner's
trophy on their profile.
Screenshots: test-artifacts/tournament-*.png."""

import re
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from gameplay.models import Match
from tests.browser.conftest import log_in, off_loop
from tests.browser.test_phone_fit import fit_problems, phone
from tests.browser.test_ratings_browser import make_move
from tests.browser.test_table_craft import live
from tests.conftest import ARTIFACTS
from tests.factories import make_user
from tests.ratings.helpers import one_move_from_the_end
from tests.tournaments.conftest import CLASSIC_QUICK, tournament
from tournaments import services
from tournaments.models import Pairing, Tournament, Trophy

PEOPLE = (("ana", "ro-RO"), ("ion", "en-GB"), ("dan", "ro-RO"))
"""Made in this order (so ana's id is the lowest): who sits with whom follows from it and the joins."""
JOIN_ORDER = ("ion", "dan", "ana")
"""The first two to join wait longest: ion and dan play first, then ana (who waited) with the one of
them first made (ion), then ana with dan. Each has played two matches."""

WORDS = {
    "en": {
        "join": "Join",
        "standing": re.compile(r"^Standings$"),
        "final": re.compile(r"^Final standings$"),
        "banner": re.compile(r"Tournament match"),
        "back": re.compile(r"Back to the tournament in \d\ss"),
        "pause": "Pause",
        "come back": "Come back",
        "trophies": "Trophies",
    },
    "ro": {
        "join": "Intră",
        "standing": re.compile(r"^Clasament", re.IGNORECASE),
        "final": re.compile(r"clasament", re.IGNORECASE),
        "banner": re.compile(r"turneu", re.IGNORECASE),
        "back": re.compile(r"turneu.*\d\ss", re.IGNORECASE),
        "pause": "Pauză",
        "trophies": re.compile(r"^Trofee$", re.IGNORECASE),
    },
}
"""The words each language's reader sees (Romanian as docs/tournaments.md names them: turneu,
clasament, pauză, trofeu)."""


@dataclass
class Player:
    name: str
    language: str
    user_id: int
    page: Page
    points: int = 0
    matches: int = 0
    wins: int = 0

    def shot(self, step: str, **options) -> None:
        self.page.screenshot(path=ARTIFACTS / f"tournament-{step}-{self.name}-{self.language}.png", **options)


def short_arena() -> tuple[int, dict[str, int]]:
    """A running public arena of one-deal classic matches at two seats (90 s a turn, so no clock plays
    for anyone), and the three established people by name."""
    try:
        people = {name: make_user(name).pk for name, _locale in PEOPLE}
        event = tournament(
            status=Tournament.Status.RUNNING,
            starts_in=timedelta(seconds=-5),
            options=CLASSIC_QUICK,
            turn_clock=90,
        )
        return event.pk, people
    finally:
        connection.close()


def open_table(tournament_id: int) -> tuple[int, list[int]]:
    """The tournament's one table being played: its id, and user ids by seat."""
    pairing = Pairing.objects.get(tournament_id=tournament_id, scored_at__isnull=True)
    return pairing.table_id, pairing.seats


def to_the_last_move(table_id: int) -> tuple[int, dict, int]:
    """The table's match played on the server to its last move: (seat, that move, the match's version)."""
    try:
        match = Match.objects.get(table_id=table_id)
        seat, action = one_move_from_the_end(match)
        match.refresh_from_db()
        return seat, action, match.version
    finally:
        connection.close()


def pause(user_id: int, tournament_id: int) -> None:
    """As the person's Pause pressed elsewhere (another tab) while they play: this match is their last."""
    from accounts.models import User

    try:
        services.tournament_withdraw(user=User.objects.get(pk=user_id), tournament_id=tournament_id)
    finally:
        connection.close()


def end_now(tournament_id: int) -> None:
    """The arena's time up (moved, not waited for) and the tick that ends it."""
    try:
        Tournament.objects.filter(pk=tournament_id).update(ends_at=timezone.now() - timedelta(seconds=1))
        services.tick()
    finally:
        connection.close()


def assert_fits(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert fit_problems(page) == []


def assert_standing(player: Player, players: list[Player], caption: str = "standing") -> None:
    """The standing on ``player``'s page: everyone's points, matches and wins, best first."""
    standing = player.page.get_by_test_id("tournament-standing")
    expect(standing.locator("caption")).to_have_text(WORDS[player.language][caption])
    for other in players:
        row = standing.locator(f"tr[data-user='{other.user_id}']")
        expect(row.locator("th a")).to_have_text(other.name)
        expect(row.locator("td")).to_have_text(
            [re.compile(r"^\d+$"), str(other.points), str(other.matches), str(other.wins)], timeout=10_000
        )
    shown = standing.locator("tbody tr td:nth-child(3)").all_inner_texts()
    assert [int(points) for points in shown] == sorted((int(points) for points in shown), reverse=True)
    expect(player.page.locator(f"tr.is-me[data-user='{player.user_id}']")).to_have_count(1)


def play_a_match(base: str, tournament_id: int, by_id: dict[int, Player]) -> list[Player]:
    """The open table's two players, their pages there by themselves, finish its match (the server
    plays it to its last move, the mover clicks that); both see it end, the tournament's banner with
    the way back, and are taken back to the tournament's page. The points each scored are noted."""
    table_id, seats = open_table(tournament_id)
    at_table = [by_id[user_id] for user_id in seats]
    for player in at_table:
        player.page.wait_for_url(f"{base}/tables/{table_id}/", timeout=20_000)
        live(player.page)
        expect(player.page.get_by_test_id("table-extra")).to_contain_text(
            WORDS[player.language]["banner"], timeout=10_000
        )
    seat, action, version = off_loop(to_the_last_move, table_id)
    mover = at_table[seat].page
    expect(mover.locator("#turn input[name=version]")).to_have_value(str(version), timeout=30_000)
    expect(mover.locator(".me-line.is-to-act")).to_be_visible()
    make_move(mover, action)
    for player in at_table:
        expect(player.page.get_by_test_id("match-over")).to_be_visible(timeout=15_000)
        expect(player.page.get_by_test_id("go-back")).to_contain_text(WORDS[player.language]["back"])
    at_table[0].shot("match-over")
    # The way back is in sight and its Stay button can be pressed (nothing lies over it).
    at_table[0].page.get_by_test_id("go-back").locator("[data-go-stay]").click(trial=True, timeout=3_000)

    match = Match.objects.get(table_id=table_id)
    assert match.status == Match.Status.FINISHED
    won = match.result["games_won"]
    for player, games in zip(at_table, won, strict=True):
        player.matches += 1
        if games > min(won):
            player.points, player.wins = player.points + 2, player.wins + 1
        elif games == max(won):
            player.points += 1  # level
    for player in at_table:  # back by themselves after the few seconds the banner counts down
        player.page.wait_for_url(f"{base}/tournaments/{tournament_id}/", wait_until="commit", timeout=15_000)
    return at_table


@pytest.mark.django_db(transaction=True)
def test_three_people_play_a_short_arena_on_their_phones(browser: Browser, live_server_url: str):
    base = live_server_url
    tournament_id, ids = off_loop(short_arena)
    page_url = f"{base}/tournaments/{tournament_id}/"
    players = {}
    for name, locale in PEOPLE:
        page = phone(browser, locale).new_page()
        log_in(page, base, name)
        players[name] = Player(name=name, language=locale[:2], user_id=ids[name], page=page)
    by_id = {player.user_id: player for player in players.values()}
    everyone = list(players.values())

    # The joins, each by the button on the tournament's page: ion waits alone, dan's join seats them.
    for name in JOIN_ORDER:
        player = players[name]
        words = WORDS[player.language]
        player.page.goto(page_url)
        join = player.page.get_by_test_id("tournament-join")
        expect(join).to_have_text(words["join"])
        if name == "ion":
            expect(player.page.get_by_test_id("tournament-standing")).to_have_count(0)
            player.shot("before-join", full_page=True)
            assert_fits(player.page)
        join.click()
        if name != "dan":
            expect(player.page.get_by_test_id("my-state")).to_be_visible()
            expect(player.page.get_by_test_id("tournament-pause")).to_have_text(words["pause"])
            expect(player.page.locator(f"tr.is-me[data-user='{player.user_id}']")).to_have_count(1)
    ana, ion, dan = players["ana"], players["ion"], players["dan"]
    expect(ana.page.get_by_test_id("tournament-standing").locator("caption")).to_have_text(
        WORDS["ro"]["standing"]
    )
    expect(ana.page.get_by_test_id("tournament-top-table")).to_contain_text("ion")
    ana.shot("waiting", full_page=True)
    assert_fits(ana.page)

    # Match 1, ion and dan; ana is seated with ion at once, dan waits and sees the points.
    assert {player.name for player in play_a_match(base, tournament_id, by_id)} == {"ion", "dan"}
    assert_standing(dan, everyone)
    dan.shot("after-match-1", full_page=True)
    assert_fits(dan.page)

    # Match 2, ana and ion; ana is seated with dan at once, ion has played two and pauses.
    assert {player.name for player in play_a_match(base, tournament_id, by_id)} == {"ana", "ion"}
    ion.page.wait_for_url(page_url)
    assert_standing(ion, everyone)
    ion.page.get_by_test_id("tournament-pause").click()
    expect(ion.page.get_by_test_id("tournament-come-back")).to_have_text(WORDS["en"]["come back"])
    expect(ion.page.get_by_test_id("my-state")).to_contain_text("Paused")
    ion.shot("paused", full_page=True)
    assert_fits(ion.page)

    # Match 3, ana and dan, whose last it is: nobody is seated after it.
    off_loop(pause, dan.user_id, tournament_id)
    assert {player.name for player in play_a_match(base, tournament_id, by_id)} == {"ana", "dan"}
    assert [player.matches for player in everyone] == [2, 2, 2]
    for player in (ana, dan):
        player.page.wait_for_url(page_url)
        assert_standing(player, everyone)
    expect(ana.page.get_by_test_id("my-state")).to_be_visible()
    expect(dan.page.get_by_test_id("tournament-come-back")).to_be_visible()
    ana.shot("after-match-3", full_page=True)
    assert not Pairing.objects.filter(tournament_id=tournament_id, scored_at__isnull=True).exists()

    # The end: the podium and the final standing, pushed to every page open.
    off_loop(end_now, tournament_id)
    podium = list(Trophy.objects.filter(tournament_id=tournament_id).order_by("place", "user_id"))
    assert [trophy.place for trophy in podium][:1] == [1]
    assert by_id[podium[0].user_id].points == max(player.points for player in everyone)
    for player in everyone:
        page = player.page
        expect(page.get_by_test_id("tournament-status")).to_have_attribute("data-status", "finished")
        shown = page.get_by_test_id("tournament-podium").locator("li")
        expect(shown).to_have_count(len(podium))
        for trophy in podium:
            place = page.get_by_test_id("tournament-podium").locator(f"li[data-user='{trophy.user_id}']")
            expect(place).to_have_class(re.compile(rf"\bpodium-{trophy.place}\b"))
            expect(place.locator(".podium-name")).to_have_text(by_id[trophy.user_id].name)
            # The trophies' places are the final standing's (tie-breaks decide among equal points).
            rank = page.get_by_test_id("tournament-standing").locator(f"tr[data-user='{trophy.user_id}'] td")
            expect(rank.first).to_have_text(str(trophy.place))
        assert_standing(player, everyone, caption="final")
        player.shot("podium")
        # Found and scrolled in one step: a standing pushed meanwhile replaces the element under a locator.
        page.evaluate("document.querySelector('[data-testid=tournament-standing]').scrollIntoView()")
        player.shot("final-standing", full_page=True)
        assert_fits(page)

    # The winner's trophy on their profile, linking to the tournament.
    winner = by_id[podium[0].user_id]
    winner.page.goto(f"{base}/players/{winner.name}/")
    trophies = winner.page.get_by_test_id("profile-trophies")
    expect(trophies.locator("h2")).to_have_text(WORDS[winner.language]["trophies"])
    trophy = trophies.get_by_test_id("trophy")
    expect(trophy).to_have_count(1)
    expect(trophy).to_have_attribute("data-place", "1")
    expect(trophy.locator("a.trophy-name")).to_have_text("arena cup")
    expect(trophy.locator("a.trophy-name")).to_have_attribute("href", f"/tournaments/{tournament_id}/")
    trophies.scroll_into_view_if_needed()
    winner.shot("trophy")
    assert_fits(winner.page)
    for player in everyone:
        player.page.context.close()
