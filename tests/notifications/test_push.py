"""Web push through a local stand-in for the push service that decrypts each message with the
browser's own keys (a real aes128gcm message signed with VAPID, not a mocked call): a turn reaching
every browser of the person in their language, a subscription the push service calls gone deleted, a
push service that hangs timing out, a sending run twice at once pushing once, and the hourly budget."""

import threading

import pytest
from django.conf import settings

from notifications import services
from notifications.models import Delivery, Kind, PushSubscription, Way
from tests.factories import make_user
from tests.faults.play import wait_for
from tests.notifications.test_email import run_at_once, turn_for

pytestmark = pytest.mark.django_db(transaction=True)


def invitation(user, number: int = 1) -> Delivery:
    """An invitation decided for ``user`` (a push, with the defaults), its row in the outbox."""
    (push,) = services.notice_decide(
        user_id=user.pk,
        kind=Kind.INVITATION,
        key=f"notice:{number}",
        params={"from": "ion"},
        link="/notices/",
    )
    return push


def test_a_turn_is_pushed_encrypted_to_every_browser_of_the_person_in_their_language(
    push_service, celery_worker
):
    mara, ion = make_user("mara"), make_user("ion")
    services.preference_save(
        user=mara,
        ways={Kind.YOUR_TURN: [Way.PUSH]},
        quiet_from=None,
        quiet_until=None,
        time_zone="Europe/Bucharest",
        language="ro",
    )
    phone, laptop = push_service.subscribe(mara, "phone"), push_service.subscribe(mara, "laptop")
    match = turn_for(mara, ion)

    pushes = push_service.wait_for(2)
    assert {push.path for push in pushes} == {f"/push/{mara.pk}-phone", f"/push/{mara.pk}-laptop"}
    for push in pushes:
        assert push.payload == {
            "title": "E rândul tău",
            "body": push.payload["body"],
            "url": f"/tables/{match.table_id}/",
            "tag": f"match-{match.pk}",
        }
        assert "Șeptică clasică" in push.payload["body"]
        assert push.headers["content-encoding"] == "aes128gcm"
        assert push.headers["authorization"].startswith("vapid t=")
        assert f"k={settings.VAPID_PUBLIC_KEY}" in push.headers["authorization"]
        assert int(push.headers["ttl"]) > 0
    wait_for(lambda: Delivery.objects.filter(user=mara, sent_at__isnull=False).exists(), 10, "marked sent")
    assert all(s.last_sent_at for s in PushSubscription.objects.filter(pk__in=[phone.pk, laptop.pk]))


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_calls_gone_is_deleted(push_service, status):
    mara = make_user("mara")
    push_service.subscribe(mara)
    push = invitation(mara)
    push_service.status = status
    assert services.push_deliver(delivery_id=push.pk) is False
    assert not PushSubscription.objects.filter(user=mara).exists()
    assert not Delivery.objects.filter(pk=push.pk).exists(), "nobody left to push it to"


def test_a_push_service_that_hangs_times_out_and_the_push_is_tried_later(push_service, settings):
    settings.PUSH_TIMEOUT_SECONDS = 0.5
    mara = make_user("mara")
    push_service.subscribe(mara)
    push = invitation(mara)
    push_service.hang = threading.Event()
    assert services.push_deliver(delivery_id=push.pk) is False
    push.refresh_from_db()
    assert push.sent_at is None and push.attempts == 1
    assert services.deliveries_due() == ([], []), "tried again after its wait"
    assert PushSubscription.objects.filter(user=mara).exists(), "a timeout is not a refusal"


def test_a_push_sent_twice_at_once_arrives_once(push_service):
    mara = make_user("mara")
    push_service.subscribe(mara)
    push = invitation(mara)
    assert sorted(run_at_once(lambda: services.push_deliver(delivery_id=push.pk), times=3)) == [
        False,
        False,
        True,
    ]
    assert len(push_service.received) == 1
    assert push_service.received[0].payload["title"] == "An invitation"


def test_pushes_beyond_the_person_s_hourly_budget_are_dropped(push_service, settings):
    settings.NOTIFY_PUSH_PER_HOUR = 2
    mara = make_user("mara")
    push_service.subscribe(mara)
    pushes = [invitation(mara, number) for number in range(3)]
    assert [services.push_deliver(delivery_id=push.pk) for push in pushes] == [True, True, False]
    assert len(push_service.received) == 2
    assert not Delivery.objects.filter(pk=pushes[2].pk).exists()
