"""Web push in Chromium: a person turns notifications on for the device (the browser asked only after
the tap; a real ``pushManager.subscribe`` with the site's key, its subscription kept as theirs), a push
delivered to the site's push worker through the DevTools protocol shows the notice, and its tap leads to
the match; turning off forgets the device on both sides; a browser that blocks notifications is said to.

What a test browser can and cannot do here:
- Debian's headless shell has no push service and no notifications at all (``subscribe`` fails with
  "push service not available" and ``showNotification`` with "no notification permission" even with
  the permission granted), so these tests drive Debian's full Chromium (in its headless mode), in a
  profile of their own (Chromium has no push in an incognito-like context, which Playwright's
  ``new_context`` is).
- Chromium subscribes through Google's push service (FCM), out of reach here: ``StandInPushService``
  answers its check-in and registration at the addresses Chromium's own ``--gcm-*`` switches name, so
  the subscription is Chromium's real one (its endpoint, its keys), only registered with a stand-in.
- What FCM would carry to the browser, the DevTools protocol delivers: ``ServiceWorker.deliverPushMessage``
  hands the worker the payload as the push service would, decrypted.
- No protocol clicks a notification (headless Chromium keeps them in memory, shown to no one): the tap
  is the worker's own ``notificationclick`` listener run by an event dispatched in the worker, with
  ``clients.openWindow`` and ``WindowClient.focus`` recorded (an untrusted event may not open or
  focus a window), and the page it chose is then opened as the browser would.
"""

import json
import shutil
import struct
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from django.db import connection
from playwright.sync_api import BrowserContext, Page, Playwright, expect

from notifications.management.commands.vapidkeys import new_pair
from notifications.models import PushSubscription
from tests.browser.conftest import log_in, off_loop
from tests.conftest import ARTIFACTS, site_env, site_of_its_own
from tests.gameplay.helpers import human_match


def full_chromium() -> str:
    for candidate in ("/usr/lib/chromium/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    pytest.skip(
        "Web push needs Debian's full Chromium (apt-get install chromium): the headless shell has none."
    )


def _varint(number: int) -> bytes:
    out = b""
    while True:
        byte, number = number & 0x7F, number >> 7
        if not number:
            return out + bytes([byte])
        out += bytes([byte | 0x80])


CHECKIN_ANSWER = (
    _varint(1 << 3)
    + _varint(1)  # stats_ok
    + _varint(7 << 3 | 1)
    + struct.pack("<Q", 4242424242)  # android_id
    + _varint(8 << 3 | 1)
    + struct.pack("<Q", 777777777)  # security_token
)
"""Google's check-in answer (an ``AndroidCheckinResponse`` protocol buffer): the device's id and secret."""


class StandInPushService:
    """Google's push registration as Chromium reaches it: a check-in (the device's id) and a
    registration per subscription (its token, which names the endpoint); what Chromium asked is kept."""

    def __init__(self) -> None:
        self.registrations: list[dict[str, str]] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/checkin":
                    answer = CHECKIN_ANSWER
                else:
                    asked = {name: values[0] for name, values in parse_qs(body.decode()).items()}
                    service.registrations.append(asked)
                    answer = f"token=stand-in-{len(service.registrations)}".encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def switches(self) -> list[str]:
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        return [
            f"--gcm-checkin-url={base}/checkin",
            f"--gcm-registration-url={base}/register",
            "--gcm-mcs-endpoint=https://127.0.0.1:1",  # its message channel: pushes come by CDP instead
        ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def push_site(django_db_setup, django_db_blocker) -> Iterator[tuple[str, str]]:
    """Daphne on the test database with a VAPID key pair: the site's address and its public key."""
    public, private = new_pair()
    env = site_env(
        VAPID_PUBLIC_KEY=public, VAPID_PRIVATE_KEY=private, VAPID_SUBJECT="mailto:admin@example.com"
    )
    with site_of_its_own("push-server", env) as url:
        yield url, public


@pytest.fixture
def push_service() -> Iterator[StandInPushService]:
    service = StandInPushService()
    yield service
    service.close()


@pytest.fixture
def chromium(playwright: Playwright, tmp_path, push_service) -> Iterator[BrowserContext]:
    """Chromium with a profile of its own on disk (push works in no other), reaching the stand-in."""
    context = playwright.chromium.launch_persistent_context(
        tmp_path / "profile",
        executable_path=full_chromium(),
        args=["--no-sandbox", "--disable-gpu", *push_service.switches],
        locale="en-GB",
        viewport={"width": 390, "height": 844},
    )
    yield context
    context.close()


COUNT_PERMISSION_ASKS = """
window.permissionAsked = 0;
if (window.Notification) {
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.permissionAsked += 1; return ask(...args); };
}
"""


TAP = """async () => {
    const asked = new Promise((resolve) => {
        self.clients.openWindow = async (url) => { resolve({ opened: url }); return null; };
        WindowClient.prototype.focus = async function () { resolve({ focused: this.url }); return this; };
    });
    const [notice] = await self.registration.getNotifications();
    self.dispatchEvent(new NotificationEvent("notificationclick", { notification: notice }));
    return { ...(await asked), left: (await self.registration.getNotifications()).length };
}"""
"""A tap on the notice shown, in the worker: its ``notificationclick`` listener runs; what it opened or
brought to the front is recorded (the event is the test's own, so the browser would let it do neither)."""


def match_to_play() -> tuple[str, str]:
    """A match at its own pace; the name of the person whose turn it is and the match's page."""
    try:
        match, users = human_match(prefix="push", pace_hours=24)
        return users[match.to_act].username, f"/tables/{match.table_id}/"
    finally:
        connection.close()


def subscriptions_of(username: str) -> list[dict]:
    try:
        rows = PushSubscription.objects.filter(user__username=username)
        return [{"endpoint": row.endpoint, "keys": {"p256dh": row.p256dh, "auth": row.auth}} for row in rows]
    finally:
        connection.close()


def browser_subscription(page: Page) -> dict | None:
    return page.evaluate(
        """async () => {
            const registration = await navigator.serviceWorker.getRegistration("/");
            const subscription = registration && await registration.pushManager.getSubscription();
            return subscription && subscription.toJSON();
        }"""
    )


def turned_on(context: BrowserContext, base: str) -> tuple[Page, str, str]:
    """A person logged in on the settings page, notifications turned on with a tap; with the match
    waiting for them."""
    username, match_path = off_loop(match_to_play)
    context.grant_permissions(["notifications"], origin=base)
    context.add_init_script(COUNT_PERMISSION_ASKS)
    page = context.new_page()
    log_in(page, base, username)
    page.goto(f"{base}/notifications/")
    state = page.get_by_test_id("push-state")
    expect(state).to_have_attribute("data-state", "off")
    assert page.evaluate("window.permissionAsked") == 0  # nothing asked before the tap
    page.get_by_role("button", name="Turn on notifications on this device").click()
    expect(state).to_have_attribute("data-state", "on")
    expect(state).to_have_text("On: this device shows your notifications.")
    assert page.evaluate("window.permissionAsked") == 1
    page.get_by_test_id("push-section").screenshot(path=ARTIFACTS / "push-on.png")
    return page, username, match_path


def push_worker_registration(page: Page, base: str) -> tuple[object, str]:
    """The DevTools session and the id of the push worker's registration (the site's whole scope)."""
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"])
    )
    cdp.send("ServiceWorker.enable")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    for _attempt in range(200):  # the events come as the page's next round trip is waited for
        found = [r for r in registrations if r["scopeURL"] == f"{base}/" and not r["isDeleted"]]
        if found:
            return cdp, found[-1]["registrationId"]
        page.wait_for_timeout(25)
    raise AssertionError(f"No push worker registered for {base}/: {registrations}")


@pytest.mark.django_db(transaction=True)
def test_a_push_shows_its_notice_and_the_tap_opens_the_match(chromium, push_site, push_service):
    base, public_key = push_site
    page, username, match_path = turned_on(chromium, base)

    # Chromium's own subscription, made with the site's key, is the one the site keeps for this person.
    made = browser_subscription(page)
    assert made["endpoint"].startswith("https://") and made["keys"]["p256dh"] and made["keys"]["auth"]
    assert subscriptions_of(username) == [{"endpoint": made["endpoint"], "keys": made["keys"]}]
    # Subscribed with the site's VAPID key (Chromium may register for its own sender too, in any order).
    assert public_key in [asked["sender"] for asked in push_service.registrations]
    page.reload()
    expect(page.get_by_test_id("push-state")).to_have_attribute("data-state", "on")
    expect(page.get_by_test_id("push-off")).to_be_visible()
    expect(page.get_by_test_id("push-on")).to_be_hidden()

    # A push arrives: the worker shows its notice.
    cdp, registration_id = push_worker_registration(page, base)
    page.evaluate(
        "() => { window.shown = []; navigator.serviceWorker.onmessage = (e) => window.shown.push(e.data); }"
    )
    payload = {
        "title": "Your turn",
        "body": "ana played 7♠: the suit is hearts.",
        "url": match_path,
        "tag": "match-1",
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": base, "registrationId": registration_id, "data": json.dumps(payload, ensure_ascii=False)},
    )
    page.wait_for_function("() => window.shown.length === 1")
    notices = page.evaluate(
        """async () => (await (await navigator.serviceWorker.getRegistration("/")).getNotifications())
            .map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}))"""
    )
    assert notices == [{**payload, "url": base + match_path}]

    # A newer notice about the same match replaces it (one per match on the device).
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": base,
            "registrationId": registration_id,
            "data": json.dumps({**payload, "body": "Still yours."}),
        },
    )
    page.wait_for_function("() => window.shown.length === 2")
    assert page.evaluate(
        """async () => (await (await navigator.serviceWorker.getRegistration("/")).getNotifications())
            .map((n) => n.body)"""
    ) == ["Still yours."]

    # The tap: the worker's own listener closes the notice and opens the match (no tab shows it yet).
    worker = next(w for w in chromium.service_workers if w.url.endswith("/notifications/push-worker.js"))
    opened = worker.evaluate(TAP)
    assert opened == {"opened": base + match_path, "left": 0}
    match_page = chromium.new_page()
    match_page.goto(opened["opened"])
    expect(match_page.locator(".play[data-live]")).to_be_attached()

    # With the match open in a tab, the tap brings that tab to the front instead of opening another.
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": base, "registrationId": registration_id, "data": json.dumps(payload)},
    )
    page.wait_for_function("() => window.shown.length === 3")
    assert worker.evaluate(TAP) == {"focused": base + match_path, "left": 0}


@pytest.mark.django_db(transaction=True)
def test_turning_off_forgets_the_device_on_both_sides(chromium, push_site):
    base, _key = push_site
    page, username, _match = turned_on(chromium, base)
    assert len(subscriptions_of(username)) == 1
    page.get_by_role("button", name="Turn off notifications on this device").click()
    expect(page.get_by_test_id("push-state")).to_have_attribute("data-state", "off")
    assert subscriptions_of(username) == [] and browser_subscription(page) is None
    expect(page.get_by_test_id("push-on")).to_be_visible()


@pytest.mark.django_db(transaction=True)
def test_a_browser_that_blocks_notifications_is_said_to(chromium, push_site):
    base, _key = push_site
    username, _match = off_loop(match_to_play)
    page = chromium.new_page()
    cdp = chromium.new_cdp_session(page)
    cdp.send(
        "Browser.setPermission",
        {"permission": {"name": "notifications"}, "setting": "denied", "origin": base},
    )
    log_in(page, base, username)
    page.goto(f"{base}/notifications/")
    state = page.get_by_test_id("push-state")
    expect(state).to_have_attribute("data-state", "blocked")
    expect(state).to_contain_text("Blocked by this browser")
    expect(page.get_by_test_id("push-on")).to_be_hidden()
    assert subscriptions_of(username) == []


@pytest.mark.django_db(transaction=True)
def test_a_browser_without_web_push_is_said_to(browser, push_site):
    """The headless shell that drives the other browser tests, with no Push API (as an iPhone's Safari
    outside the Home Screen): the page says so and offers nothing to tap."""
    base, _key = push_site
    username, _match = off_loop(match_to_play)
    context = browser.new_context(locale="en-GB")
    context.add_init_script("delete window.PushManager;")
    page = context.new_page()
    log_in(page, base, username)
    page.goto(f"{base}/notifications/")
    state = page.get_by_test_id("push-state")
    expect(state).to_have_attribute("data-state", "unsupported")
    expect(state).to_have_text("This browser cannot show notifications from a website.")
    expect(page.get_by_test_id("push-on")).to_be_hidden()
    expect(page.get_by_test_id("push-off")).to_be_hidden()
    context.close()
