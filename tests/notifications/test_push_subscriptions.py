"""Turning web push on and off for a device: the settings page's two requests (logged in, with the CSRF
token, within a budget), what a browser's subscription must be to be kept (a push service's https
address, real keys, a small body), one row per endpoint whoever sent it last, and a cap on a person's
devices; the push worker as the browser fetches it; the settings page's section; ``manage.py
vapidkeys``."""

import base64
import io
import json
import os
import threading

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from py_vapid import Vapid

from config.settings.env import env_file
from notifications.models import PushSubscription
from notifications.services import subscriptions
from tests.factories import make_user
from tests.notifications.conftest import b64url

SUBSCRIBE = reverse("notifications:push-subscribe")
UNSUBSCRIBE = reverse("notifications:push-unsubscribe")


def browser_subscription(endpoint: str = "https://fcm.googleapis.com/fcm/send/d3v1c3") -> dict:
    """What a browser's ``PushSubscription.toJSON()`` gives: its push service's address, its own public
    key and a 16-byte auth secret."""
    public = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {
        "endpoint": endpoint,
        "expirationTime": None,
        "keys": {"p256dh": b64url(public), "auth": b64url(os.urandom(16))},
    }


def post(client: Client, url: str, body, **headers):
    data = body if isinstance(body, bytes) else json.dumps(body)
    return client.post(url, data, content_type="application/json", headers=headers)


@pytest.fixture
def mara_in(client, mara):
    client.force_login(mara)
    return client


def test_a_device_turned_on_is_kept_for_its_person(mara_in, mara):
    offered = browser_subscription()
    response = post(mara_in, SUBSCRIBE, offered)
    assert response.status_code == 200 and response.json() == {"on": True}
    kept = PushSubscription.objects.get()
    assert (kept.user, kept.endpoint) == (mara, offered["endpoint"])
    assert (kept.p256dh, kept.auth) == (offered["keys"]["p256dh"], offered["keys"]["auth"])


def test_the_same_device_again_is_one_row_with_its_newest_keys(mara_in):
    first, again = browser_subscription(), browser_subscription()
    assert post(mara_in, SUBSCRIBE, first).status_code == 200
    kept_at = PushSubscription.objects.get().created_at
    assert post(mara_in, SUBSCRIBE, again).status_code == 200
    kept = PushSubscription.objects.get()
    assert kept.p256dh == again["keys"]["p256dh"] and kept.created_at > kept_at


def test_a_browser_another_person_turned_on_becomes_the_new_persons(mara_in, mara):
    offered = browser_subscription()
    ion = make_user("ion")
    other = Client()
    other.force_login(ion)
    assert post(other, SUBSCRIBE, offered).status_code == 200
    assert post(mara_in, SUBSCRIBE, offered).status_code == 200
    assert list(PushSubscription.objects.values_list("user", flat=True)) == [mara.pk]


def test_past_the_cap_the_device_turned_on_longest_ago_is_forgotten(mara_in, mara, settings):
    settings.PUSH_SUBSCRIPTIONS_PER_PERSON = 2
    phone, laptop, tablet = (browser_subscription(f"https://fcm.googleapis.com/fcm/send/{n}") for n in "123")
    for device in (phone, laptop, tablet):
        assert post(mara_in, SUBSCRIBE, device).status_code == 200
    kept = set(mara.push_subscriptions.values_list("endpoint", flat=True))
    assert kept == {laptop["endpoint"], tablet["endpoint"]}
    assert post(mara_in, SUBSCRIBE, phone).status_code == 200  # the phone again: now the laptop goes
    assert set(mara.push_subscriptions.values_list("endpoint", flat=True)) == {
        tablet["endpoint"],
        phone["endpoint"],
    }


@pytest.mark.django_db(transaction=True)
def test_the_cap_holds_when_devices_turn_on_at_once(settings):
    settings.PUSH_SUBSCRIPTIONS_PER_PERSON = 1
    mara = make_user("mara")
    devices = [browser_subscription(f"https://fcm.googleapis.com/fcm/send/{n}") for n in range(4)]
    offers = [subscriptions.subscription_read(json.dumps(device).encode()) for device in devices]
    together = threading.Barrier(len(offers))

    def turn_on(offered: subscriptions.Offered) -> None:
        together.wait()
        try:
            subscriptions.subscription_save(user=mara, offered=offered, address=None)
        finally:
            connection.close()

    threads = [threading.Thread(target=turn_on, args=(offered,)) for offered in offers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert PushSubscription.objects.filter(user=mara).count() == 1


def test_turning_on_and_off_spends_a_budget(mara_in, settings):
    settings.PUSH_SUBSCRIBE_PER_HOUR = 2
    offered = browser_subscription()
    assert post(mara_in, SUBSCRIBE, offered).status_code == 200
    assert post(mara_in, UNSUBSCRIBE, {"endpoint": offered["endpoint"]}).status_code == 200
    refused = post(mara_in, SUBSCRIBE, offered)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "too often" in refused.json()["error"]
    assert not PushSubscription.objects.exists()


def test_an_address_has_a_budget_of_its_own(client, settings, db):
    settings.PUSH_SUBSCRIBE_PER_ADDRESS_PER_HOUR = 1
    for name, status in (("ana", 200), ("ion", 429)):
        client.force_login(make_user(name))
        assert (
            post(client, SUBSCRIBE, browser_subscription(f"https://fcm.googleapis.com/x/{name}")).status_code
            == status
        )
    assert "your network" in post(client, SUBSCRIBE, browser_subscription()).json()["error"]


def test_turning_off_forgets_the_persons_device_only(mara_in, mara):
    mine, theirs = (
        browser_subscription("https://fcm.googleapis.com/a"),
        browser_subscription("https://fcm.googleapis.com/b"),
    )
    assert post(mara_in, SUBSCRIBE, mine).status_code == 200
    ion = make_user("ion")
    PushSubscription.objects.create(user=ion, endpoint=theirs["endpoint"], p256dh="x", auth="y")
    for endpoint in (mine["endpoint"], theirs["endpoint"], mine["endpoint"]):
        response = post(mara_in, UNSUBSCRIBE, {"endpoint": endpoint})
        assert response.status_code == 200 and response.json() == {"on": False}
    assert list(PushSubscription.objects.values_list("user", flat=True)) == [ion.pk]


def test_nobody_logged_in_is_refused(client, db):
    for url, body in (
        (SUBSCRIBE, browser_subscription()),
        (UNSUBSCRIBE, {"endpoint": "https://fcm.googleapis.com/a"}),
    ):
        response = post(client, url, body)
        assert response.status_code == 403 and "Log in" in response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_the_page_sends_its_csrf_token_in_a_header(mara):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(mara)
    offered = browser_subscription()
    assert post(browser, SUBSCRIBE, offered).status_code == 403
    browser.get(reverse("notifications:settings"))  # its form sets the cookie
    token = browser.cookies["csrftoken"].value
    assert post(browser, SUBSCRIBE, offered, **{"X-CSRFToken": token}).status_code == 200
    assert post(browser, UNSUBSCRIBE, {"endpoint": offered["endpoint"]}).status_code == 403
    assert PushSubscription.objects.count() == 1


def test_only_posts_are_answered(mara_in):
    assert mara_in.get(SUBSCRIBE).status_code == 405
    assert mara_in.get(UNSUBSCRIBE).status_code == 405


def changed(offered: dict, **keys) -> dict:
    return {**offered, "keys": {**offered["keys"], **keys}}


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"\xff\xfe",
        b"[]",
        b'"https://fcm.googleapis.com/a"',
        b"{}",
        json.dumps({"endpoint": 42}).encode(),
        json.dumps({**browser_subscription(), "keys": None}).encode(),
        json.dumps({k: v for k, v in browser_subscription().items() if k != "keys"}).encode(),
    ],
    ids=["broken", "not-utf8", "a-list", "a-string", "empty", "endpoint-a-number", "keys-null", "no-keys"],
)
def test_a_malformed_body_is_refused(mara_in, body):
    response = post(mara_in, SUBSCRIBE, body)
    assert response.status_code == 400 and response.json()["error"]
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://fcm.googleapis.com/fcm/send/a",  # not https
        "https://127.0.0.1/push/a",  # the site's own machine
        "https://10.0.0.5/push/a",  # its network
        "https://push.intranet.example/a",  # no push service's
        "https://fcm.googleapis.com.evil.example/a",  # a lookalike
        "https://evilgoogle.com/a",
        "https://fcm.googleapis.com:8443/a",  # another port
        "https://user:secret@fcm.googleapis.com/a",
        "https://fcm.googleapis.com:99999/a",  # no port at all
        "javascript:alert(1)",
        "https://fcm.googleapis.com/" + "a" * 1000,  # longer than the column
    ],
)
def test_an_endpoint_that_is_not_a_push_services_is_refused(mara_in, endpoint):
    response = post(mara_in, SUBSCRIBE, browser_subscription(endpoint))
    assert response.status_code == 400 and "push service" in response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_each_browsers_push_service_is_accepted(mara_in):
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/a",  # Chrome, Edge on Android, Samsung
        "https://jmt17.google.com/fcm/send/b",  # Chrome on the desktop
        "https://updates.push.services.mozilla.com/wpush/v2/c",  # Firefox
        "https://wns2-par02p.notify.windows.com/w/?token=d",  # Edge on Windows
        "https://web.push.apple.com/e",  # Safari
    ):
        assert post(mara_in, SUBSCRIBE, browser_subscription(endpoint)).status_code == 200
    assert PushSubscription.objects.count() == 5


@pytest.mark.parametrize(
    "keys",
    [
        {"p256dh": b64url(b"\x04" + b"\x01" * 64)},  # 65 bytes, but no point on the curve
        {"p256dh": b64url(os.urandom(33))},  # a compressed point: browsers send the uncompressed one
        {"p256dh": "not base64 !"},
        {"p256dh": 7},
        {"auth": b64url(os.urandom(15))},
        {"auth": "A" * 101},
        {"auth": None},
    ],
    ids=["off-curve", "compressed", "not-base64", "a-number", "auth-short", "auth-long", "auth-null"],
)
def test_keys_that_are_not_a_browsers_are_refused(mara_in, keys):
    response = post(mara_in, SUBSCRIBE, changed(browser_subscription(), **keys))
    assert response.status_code == 400 and "keys" in response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_padded_base64_keys_are_taken_as_they_come(mara_in):
    offered = browser_subscription()
    padded = changed(offered, auth=offered["keys"]["auth"] + "==")
    assert post(mara_in, SUBSCRIBE, padded).status_code == 200


def test_a_huge_body_is_refused_before_it_is_read(mara_in, settings):
    offered = browser_subscription()
    big = json.dumps({**offered, "padding": "x" * settings.PUSH_SUBSCRIPTION_MAX_BYTES}).encode()
    response = post(mara_in, SUBSCRIBE, big)
    assert response.status_code == 413 and "4096 bytes" in response.json()["error"]
    # A body larger than it says is measured too.
    with pytest.raises(subscriptions.SubscriptionTooBig):
        subscriptions.subscription_read(big)
    assert not PushSubscription.objects.exists()


def test_the_push_worker_may_serve_the_whole_site(client):
    response = client.get(reverse("notifications:push-worker"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    script = response.text
    assert 'const ICON = "/static/icons/icon-192.png";' in script
    for event in ('"push"', '"notificationclick"'):
        assert f"addEventListener({event}" in script
    assert '"fetch"' not in script  # it answers no page's requests: the practice worker keeps its own


def test_the_settings_page_offers_push_once_the_site_has_keys(mara_in, mara, vapid):
    page = mara_in.get(reverse("notifications:settings")).text
    assert 'data-testid="push-on"' in page and f'data-key="{vapid.VAPID_PUBLIC_KEY}"' in page
    assert "/static/js/push.js" in page and 'data-mine=""' in page
    assert "Home Screen" in page  # what an iPhone needs
    offered = browser_subscription()
    assert post(mara_in, SUBSCRIBE, offered).status_code == 200
    page = mara_in.get(reverse("notifications:settings")).text
    digest = subscriptions.endpoint_digests(mara.pk)[0]
    assert f'data-mine="{digest}"' in page and offered["endpoint"] not in page


def test_without_keys_the_settings_page_says_push_is_not_set_up(mara_in, settings):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    page = mara_in.get(reverse("notifications:settings")).text
    assert 'data-state="unavailable"' in page and 'data-testid="push-on"' not in page
    assert "/static/js/push.js" not in page


def test_vapidkeys_prints_a_pair_that_signs_as_pywebpush_reads_it():
    out = io.StringIO()
    call_command("vapidkeys", subject="mailto:ops@example.com", stdout=out)
    lines = dict(line.split("=", 1) for line in out.getvalue().splitlines())
    assert set(lines) == {"VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY", "VAPID_SUBJECT"}
    assert lines["VAPID_SUBJECT"] == "mailto:ops@example.com"
    public = base64.urlsafe_b64decode(lines["VAPID_PUBLIC_KEY"] + "==")
    assert len(public) == 65 and public[0] == 4  # the applicationServerKey a browser takes
    signer = Vapid.from_string(lines["VAPID_PRIVATE_KEY"])  # as pywebpush reads the setting
    derived = signer.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    assert derived == public
    call_command("vapidkeys", stdout=(again := io.StringIO()))
    assert again.getvalue().splitlines()[0] != out.getvalue().splitlines()[0]  # a new pair each time


def test_vapidkeys_refuses_a_subject_push_services_refuse():
    from django.core.management import CommandError

    with pytest.raises(CommandError):
        call_command("vapidkeys", subject="ops@example.com", stdout=io.StringIO())


def test_the_embedded_defaults_pair_is_made_once_and_kept(settings, tmp_path):
    settings.EMBEDDED_VAPID_FILE = tmp_path / "vapid.env"
    call_command("vapidkeys", embedded=True, stdout=io.StringIO())
    made = env_file(settings.EMBEDDED_VAPID_FILE)
    assert made["VAPID_PUBLIC_KEY"] and made["VAPID_PRIVATE_KEY"]
    assert settings.EMBEDDED_VAPID_FILE.stat().st_mode & 0o777 == 0o600
    call_command("vapidkeys", embedded=True, stdout=io.StringIO())
    assert env_file(settings.EMBEDDED_VAPID_FILE) == made


def test_the_installed_app_is_the_whole_site(client):
    """On an iPhone, push is turned on in a page of the app added to the Home Screen: the settings page
    must be in the app's scope, not only the practice table it opens on."""
    manifest = client.get("/practice/manifest.webmanifest").json()
    assert manifest["scope"] == "/" and manifest["start_url"] == "/practice/"
