"""A closed account: while it exists its notification settings, its browsers and its outbox are in the
data download; closing it deletes them, so nothing waiting is sent to it afterwards."""

import pytest

from notifications import services
from notifications.models import Delivery, Kind, Preference, PushSubscription, Way
from privacy import services as privacy_services
from privacy.export import person_data
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_closed_account_s_subscriptions_and_queued_mail_are_in_its_download_then_gone(push_service):
    mara, ion = make_user("mara"), make_user("ion")
    for person in (mara, ion):
        push_service.subscribe(person)
        services.preference_save(
            user=person,
            ways={Kind.WARNING: [Way.PUSH, Way.EMAIL]},
            quiet_from=None,
            quiet_until=None,
            time_zone="Europe/Bucharest",
            language="ro",
        )
        services.notice_decide(
            user_id=person.pk, kind=Kind.WARNING, key="warning:1", params={"reason": "Be kind."}, link="/"
        )

    data = person_data(mara)
    assert data["notification_settings"]["language"] == "ro"
    assert data["notification_settings"]["ways"][Kind.WARNING] == [Way.PUSH, Way.EMAIL]
    assert [s["push_service"] for s in data["push_subscriptions"]] == [mara.push_subscriptions.get().endpoint]
    assert sorted((d["way"], d["sent"]) for d in data["notifications"]) == [
        (Way.EMAIL, None),
        (Way.PUSH, None),
    ]
    assert "keys" not in str(data["push_subscriptions"]) and "auth" not in data["push_subscriptions"][0]

    privacy_services.account_erase(user=mara)
    assert not Preference.objects.filter(user=mara).exists()
    assert not PushSubscription.objects.filter(user=mara).exists()
    assert not Delivery.objects.filter(user=mara).exists()
    assert services.email_deliver(user_id=mara.pk, kind=Kind.WARNING) == 0
    assert Delivery.objects.filter(user=ion).count() == 2, "nobody else's"
