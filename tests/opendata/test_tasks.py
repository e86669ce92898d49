"""The worker's side: beat's monthly entry and its task, a closed account's files built again, and a
moderator's request from the admin, queued through the service, with a real worker and broker."""

from datetime import timedelta

import pytest
from celery.schedules import crontab
from django.conf import settings
from django.contrib.auth.models import Permission
from django.urls import reverse

from accounts import limits
from gameplay.models import Match
from opendata import services, tasks
from opendata.models import Dump
from opendata.selectors import month_start, read_records
from privacy import services as privacy_services
from tests.conftest import queued, queued_args
from tests.factories import make_user
from tests.gameplay.helpers import wait_until
from tests.opendata.helpers import rated_played
from tests.opendata.test_build import this_month


def test_beat_builds_last_month_on_the_first_of_each_month():
    entry = settings.CELERY_BEAT_SCHEDULE["opendata-monthly"]
    assert entry["task"] == tasks.monthly.name == "opendata.tasks.monthly"
    assert isinstance(entry["schedule"], crontab)
    assert entry["schedule"].day_of_month == {1} and entry["schedule"].hour == {6}


@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_the_monthly_task(celery_worker, ana, ion, open_data_root):
    match = rated_played("classic", [ana, ion])
    Match.objects.filter(pk=match.pk).update(
        finished_at=month_start(services.last_month()) + timedelta(hours=5)
    )
    tasks.monthly.delay()
    assert wait_until(lambda: Dump.objects.filter(game="classic", built_at__isnull=False).exists())
    dump = Dump.objects.get(game="classic")
    assert (dump.month, dump.matches) == (services.last_month(), 1)
    assert [record["id"] for record in read_records(open_data_root / dump.file_name)] == [match.pk]


@pytest.mark.django_db(transaction=True)
def test_closing_an_account_builds_its_months_again_without_its_name(celery_worker, ana, ion, open_data_root):
    rated_played("americana", [ana, ion])
    rated_played("classic", [make_user("vera"), ion])
    dump = services.build(game="americana", month=this_month())
    untouched = services.build(game="classic", month=this_month())
    path = open_data_root / dump.file_name
    assert [seat["name"] for seat in next(read_records(path))["seats"]] == ["ana", "ion"]

    privacy_services.account_erase(user=ana)
    assert wait_until(lambda: Dump.objects.get(pk=dump.pk).built_at > dump.built_at)
    assert [seat["name"] for seat in next(read_records(path))["seats"]] == ["a deleted player", "ion"]
    assert "ana" not in {seat["name"] for record in read_records(path) for seat in record["seats"]}
    assert Dump.objects.get(pk=untouched.pk).built_at == untouched.built_at, "a month she did not play in"


@pytest.mark.django_db
def test_a_moderator_granted_it_asks_for_a_build_from_the_admin(
    client, broker, django_capture_on_commit_callbacks
):
    moderator = make_user("mod", is_staff=True)
    moderator.user_permissions.add(*Permission.objects.filter(codename__in=["view_dump", "build_dump"]))
    client.force_login(moderator)
    limits.forget(f"opendata-build:{moderator.pk}")  # an earlier run's moderator had the same id
    dump = Dump.objects.create(game="americana", month=this_month())
    changelist = reverse("admin:opendata_dump_changelist")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            changelist, {"action": "build_again", "_selected_action": [dump.pk]}, follow=True
        )
    assert "1 file will be built again in a moment." in response.content.decode()
    assert [queued_args(message) for message in queued(broker, tasks.build.name)] == [
        ["americana", f"{this_month():%Y-%m}"]
    ]
    for _ in range(services.ASKED_PER_HOUR):
        with django_capture_on_commit_callbacks(execute=True):
            client.post(changelist, {"action": "build_again", "_selected_action": [dump.pk]})
    assert len(queued(broker, tasks.build.name)) == services.ASKED_PER_HOUR, "a few an hour"


@pytest.mark.django_db
def test_moderators_may_build_a_file_again_and_other_staff_may_not(mod_client, client):
    Dump.objects.create(game="americana", month=this_month())
    response = mod_client.get(reverse("admin:opendata_dump_changelist"))
    assert response.status_code == 200 and "build_again" in response.content.decode()
    client.force_login(make_user("staffer", is_staff=True))
    assert client.get(reverse("admin:opendata_dump_changelist")).status_code == 403
