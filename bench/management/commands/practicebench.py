"""``manage.py practicebench --url URL``: what the offline practice costs a player, measured in Chromium.

Prints the bytes the first visit sends over the wire (compressed, as the browser counts them), when
Python's snapshot is kept, the time from an offline reload to a dealt table and from an offline
reload mid-match to the position back (each with the worker's phases and whether it started from
the snapshot), and each bot level's decision time inside the worker (p50/p95, Pyodide). Run it
against the production shape (``make prod``), whose static files are compressed as a player's
would be. A benchmark prints numbers; it asserts nothing.
"""

import re
import shutil
import statistics
import time

from django.core.management.base import BaseCommand, CommandError

READY_TIMEOUT_MS = 180_000
LEVELS = ("easy", "normal", "hard")


def take_turn(page) -> None:
    """The person's turn by clicks: a playable card (a seven names hearts) and Play, else a button."""
    playable = page.locator(".hand-card:not(.is-dim)")
    if playable.count() and page.locator(".play-button").count():
        card = playable.first
        card.click()
        if card.locator("input[data-seven]").count():
            page.locator(".suit-picker button").nth(1).click()
        else:
            page.locator(".play-button").click()
    else:
        page.get_by_test_id("actions").locator("button[name=type]").first.click()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class Command(BaseCommand):
    help = "Measure the offline practice in Chromium: first-visit bytes, offline start, bots' decision times."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="The site (e.g. `make prod`).")
        parser.add_argument("--starts", type=int, default=3, help="Offline starts to time.")
        parser.add_argument(
            "--decisions", type=int, default=60, help="Bot decisions to time per level and game."
        )
        parser.add_argument(
            "--players",
            type=int,
            choices=(2, 3, 4),
            default=4,
            help="The size of the tables bots are timed at.",
        )

    def handle(self, *args, url: str, starts: int, decisions: int, players: int, **options) -> None:
        from playwright.sync_api import expect, sync_playwright

        self.expect = expect
        chromium = shutil.which("chromium-headless-shell") or shutil.which("chromium")
        if chromium is None:
            raise CommandError("No Chromium: apt-get install chromium-headless-shell.")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            context = browser.new_context(locale="en-GB", viewport={"width": 375, "height": 667})
            page = context.new_page()
            self.first_visit(page, url)
            self.offline_starts(context, page, starts)
            context.set_offline(False)
            if decisions:
                self.decision_times(page, decisions, players)
            browser.close()

    def ready(self, page) -> None:
        self.expect(page.get_by_test_id("practice-status")).to_have_text(
            "Ready offline", timeout=READY_TIMEOUT_MS
        )

    def first_visit(self, page, url: str) -> None:
        """Every response that came over the wire (the page's and its service worker's), as the
        browser received it: compressed bodies and their headers."""
        counted = {"bytes": 0, "requests": 0}

        def finished(request) -> None:
            response = request.response()
            if response is None or response.from_service_worker:
                return
            sizes = request.sizes()
            counted["bytes"] += sizes["responseBodySize"] + sizes["responseHeadersSize"]
            counted["requests"] += 1

        page.context.on("requestfinished", finished)
        started = time.perf_counter()
        page.goto(f"{url}/practice/")
        self.ready(page)
        seconds = time.perf_counter() - started
        page.context.remove_listener("requestfinished", finished)
        booted = int(page.get_by_test_id("practice").get_attribute("data-booted"))
        self.stdout.write(
            f"first visit: {counted['bytes'] / 1e6:.2f} MB over the wire in {counted['requests']} requests, "
            f"ready offline after {seconds:.1f} s (Python started in {booted / 1000:.1f} s)"
        )
        kept = page.get_by_test_id("practice")
        self.expect(kept).to_have_attribute("data-snapshot-kept", re.compile(r"."), timeout=READY_TIMEOUT_MS)
        self.stdout.write(
            f"  Python's snapshot kept {time.perf_counter() - started:.1f} s after the visit began"
        )

    def offline_starts(self, context, page, starts: int) -> None:
        context.set_offline(True)
        timings, phases = [], []
        for _ in range(starts):
            started = time.perf_counter()
            page.reload()
            self.ready(page)
            page.get_by_test_id("practice-start").click()
            self.expect(page.locator(".play .hand-card").first).to_be_visible(timeout=30_000)
            timings.append(time.perf_counter() - started)
            phases.append(self.phases(page))
            page.once("dialog", lambda dialog: dialog.accept())
            page.get_by_test_id("practice-leave").click()
        self.timings("offline start to a dealt table (reload, Start, deal)", timings, phases, "2.5 s")
        shown, playable, phases = [], [], []
        table = page.locator("#practice-table")
        for _ in range(starts):
            page.get_by_test_id("practice-start").click()
            self.expect(page.locator(".play .hand-card").first).to_be_visible(timeout=30_000)
            if page.locator(".me-line.is-to-act").count():
                take_turn(page)
            page.wait_for_timeout(500)
            started = time.perf_counter()
            page.reload()
            self.expect(page.locator(".play .hand-card").first).to_be_visible(timeout=READY_TIMEOUT_MS)
            shown.append(time.perf_counter() - started)
            self.expect(table).not_to_have_attribute("inert", "", timeout=READY_TIMEOUT_MS)
            self.expect(page.locator(".play .hand-card").first).to_be_visible()
            playable.append(time.perf_counter() - started)
            phases.append(self.phases(page))
            page.once("dialog", lambda dialog: dialog.accept())
            page.get_by_test_id("practice-leave").click()
        self.timings("offline reload mid-match to the position shown", shown, phases, "1 s")
        self.timings(
            "  ... and playable (Python ready, the table its own)", playable, [], "as soon as Python is"
        )

    @staticmethod
    def phases(page) -> str:
        root = page.get_by_test_id("practice")
        return f"{root.get_attribute('data-boot-from')} {root.get_attribute('data-boot-phases')}"

    def timings(self, what: str, timings: list[float], phases: list[str], target: str) -> None:
        self.stdout.write(
            f"{what}: "
            + ", ".join(f"{seconds:.2f} s" for seconds in timings)
            + f" (median {statistics.median(timings):.2f} s, spread {max(timings) - min(timings):.2f} s; "
            f"target {target})"
        )
        if phases:
            self.stdout.write("  the worker's start, from and ms per phase: " + "; ".join(phases))

    def decision_times(self, page, decisions: int, players: int) -> None:
        for game in ("americana", "classic"):
            for level in LEVELS:
                times = self.play_for_decisions(page, game, level, decisions, players)
                self.stdout.write(
                    f"{game} bot decision in the worker, {players} players, {level}: "
                    f"p50 {percentile(times, 0.5):.1f} ms, "
                    f"p95 {percentile(times, 0.95):.1f} ms, max {max(times):.1f} ms ({len(times)} decisions)"
                )

    def play_for_decisions(self, page, game: str, level: str, wanted: int, players: int) -> list[float]:
        page.evaluate(
            "() => { window.practiceDecisions = []; "
            "localStorage.removeItem(practiceRecords.key('current')); }"
        )
        page.reload()
        self.ready(page)
        page.locator(f'input[name="game"][value="{game}"]').check()
        page.locator(f"#id_{game}_players").select_option(str(players))
        page.locator("#id_bot_level").select_option(level)
        page.locator("#id_fast_bots").check()
        page.get_by_test_id("practice-start").click()
        for _ in range(2000):
            times = page.evaluate("() => (window.practiceDecisions ?? []).map(decision => decision.ms)")
            if len(times) >= wanted:
                return times
            if page.get_by_test_id("match-over").count():
                page.locator('[data-practice="again"]').click()
            elif page.locator(".me-line.is-to-act").count():
                take_turn(page)
            page.wait_for_timeout(100)
        return page.evaluate("() => window.practiceDecisions.map(decision => decision.ms)")
