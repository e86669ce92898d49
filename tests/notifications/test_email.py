"""Email on PostgreSQL, Redis and a real Celery worker, through a real SMTP server the test starts: a
turn mailed in the person's language with its one-click unsubscribe (the link and RFC 8058's headers;
a link altered, reused, POSTed by a mail client), the turns that come within the period as one digest,
a mail server down (tried again later, sent once), and one email however many tasks run for it."""

import threading
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from gameplay import services as gameplay_services
from gameplay.models import Match
from notifications import services, tasks
from notifications.models import Delivery, Kind, Preference, Way
from tables import services as table_services
from tables.models import Pace
from tests.conftest import free_port
from tests.factories import PASSWORD, make_user
from tests.faults.play import wait_for
from tests.gameplay.helpers import first_legal
from tests.mailbox import Mailbox, link_in, text_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def site_origin(settings):
    settings.SITE_ORIGIN = "http://testserver"


def log_in(user, language: str) -> None:
    """Log in through the login page in ``language``, as the person would."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    response = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302


def turn_for(person, other) -> Match:
    """A match at own pace between ``person`` and ``other``, played on until it is ``person``'s turn."""
    table = gameplay_services.table_create(
        host=person,
        game="classic",
        options={"players": 2},
        turn_clock=45,
        is_private=False,
        pace_hours=Pace.DAY_1,
    )
    table_services.seat_take(table_id=table.pk, user=other)
    match = Match.objects.get(table=table)
    while match.table.seats.get(position=match.to_act).user_id != person.pk:
        mover, action = first_legal(match)
        gameplay_services.act(match_id=match.pk, seat=mover, action=action, expected_version=match.version)
        match.refresh_from_db()
    return match


def path_of(link: str) -> str:
    parts = urlsplit(link)
    assert parts.netloc == "testserver"
    return parts.path


def test_a_turn_is_mailed_in_the_person_s_language_with_a_one_click_unsubscribe(smtp, celery_worker):
    mara, ion = make_user("mara"), make_user("ion")
    log_in(mara, "ro")
    log_in(ion, "en")
    services.preference_save(
        user=ion, ways={}, quiet_from=None, quiet_until=None, time_zone="Europe/London", language="en"
    )
    match = turn_for(mara, ion)

    (message,) = smtp.wait_for(1)
    assert message["To"] == "mara@example.com"
    assert message["Subject"] == "E rândul tău"
    assert "Șeptică clasică" in text_of(message)
    assert f"http://testserver/tables/{match.table_id}/" in text_of(message)
    assert '<html lang="ro">' in message.get_body(("html",)).get_content()
    unsubscribe = link_in(message, "/notifications/unsubscribe/")
    assert message["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    mail_client = Client(enforce_csrf_checks=True)
    page = mail_client.get(path_of(unsubscribe))
    assert page.status_code == 200 and 'data-testid="unsubscribe-confirm"' in page.text
    assert Preference.objects.get(user=mara).sends(Kind.YOUR_TURN, Way.EMAIL), "opening the link asks first"
    altered = path_of(unsubscribe).replace("/unsubscribe/", "/unsubscribe/x")
    assert mail_client.post(altered, {"List-Unsubscribe": "One-Click"}).status_code == 400
    assert Preference.objects.get(user=mara).sends(Kind.YOUR_TURN, Way.EMAIL)

    for _ in range(2):  # the mail client's one-click POST, then the link used again
        done = mail_client.post(path_of(unsubscribe), {"List-Unsubscribe": "One-Click"})
        assert done.status_code == 200 and 'data-testid="unsubscribe-done"' in done.text
    preference = Preference.objects.get(user=mara)
    assert not preference.sends(Kind.YOUR_TURN, Way.EMAIL)
    assert preference.sends(Kind.PACE_RESULT, Way.EMAIL) and preference.language == "ro"


def test_turns_within_the_period_go_as_one_digest(smtp, celery_worker):
    mara, others = make_user("mara"), [make_user(f"rival{n}") for n in range(3)]
    for other in others:
        services.preference_save(
            user=other,
            ways={},
            quiet_from=None,
            quiet_until=None,
            time_zone="Europe/Bucharest",
            language="en",
        )
    first = turn_for(mara, others[0])
    smtp.wait_for(1)
    sent_at = wait_for(
        lambda: Delivery.objects.filter(user=mara).values_list("sent_at", flat=True).first(),
        10,
        "marked sent",
    )

    later = [turn_for(mara, other) for other in others[1:]]
    waiting = Delivery.objects.filter(user=mara, sent_at__isnull=True)
    wait_for(lambda: waiting.count() == 2, 10, "both turns decided")
    period_over = sent_at + timedelta(minutes=settings.NOTIFY_EMAIL_PERIOD_MINUTES)
    assert all(row.due_at >= period_over for row in waiting), "at most one email a period"
    assert services.deliveries_due() == ([], [])

    period = timedelta(minutes=settings.NOTIFY_EMAIL_PERIOD_MINUTES)
    Delivery.objects.filter(user=mara, sent_at__isnull=False).update(sent_at=sent_at - period)
    waiting.update(due_at=timezone.now())  # the period is over
    tasks.send_due.delay()
    digest = smtp.wait_for(2)[1]
    assert digest["Subject"] == "It's your turn in 2 matches"
    for match in later:
        assert f"http://testserver/tables/{match.table_id}/" in text_of(digest)
    assert f"/tables/{first.table_id}/" not in text_of(digest)
    wait_for(lambda: not Delivery.objects.filter(user=mara, sent_at__isnull=True).exists(), 10, "marked sent")


def test_a_mail_server_down_is_tried_again_later_and_the_email_sent_once(settings):
    back = Mailbox(free_port())
    settings.MAILERS = back.mailer()  # not started yet: the connection is refused
    mara = make_user("mara")
    services.notice_decide(
        user_id=mara.pk, kind=Kind.WARNING, key="warning:1", params={"reason": "Be kind."}, link="/"
    )

    assert services.email_deliver(user_id=mara.pk, kind=Kind.WARNING) == 0
    (row,) = Delivery.objects.filter(user=mara)
    assert row.sent_at is None and row.attempts == 1 and row.last_error
    assert row.due_at >= timezone.now() + timedelta(seconds=settings.NOTIFY_RETRY_SECONDS - 5)
    assert services.deliveries_due() == ([], []), "not before its wait is over"

    back.start()
    try:
        Delivery.objects.update(due_at=timezone.now())
        assert services.deliveries_due() == ([], [(mara.pk, Kind.WARNING)])
        sent = run_at_once(lambda: services.email_deliver(user_id=mara.pk, kind=Kind.WARNING), times=3)
        assert sorted(sent) == [0, 0, 1], "three sendings at once send one email"
        (message,) = back.wait_for(1)
        assert "Be kind." in text_of(message)
        assert services.deliveries_due() == ([], [])
        assert len(back.messages) == 1

        services.notice_decide(user_id=mara.pk, kind=Kind.WARNING, key="warning:2", params={}, link="/")
        early = Delivery.objects.filter(key="warning:2")
        early.update(due_at=timezone.now())  # as if decided together with the first, before it was sent
        assert services.email_deliver(user_id=mara.pk, kind=Kind.WARNING) == 0, "one email a period"
        sent_at = Delivery.objects.get(key="warning:1").sent_at
        assert early.get().due_at == sent_at + timedelta(minutes=settings.NOTIFY_EMAIL_PERIOD_MINUTES)
    finally:
        back.stop()


def run_at_once(send, *, times: int) -> list:
    """``send`` in ``times`` threads started together (each with its own database connection)."""
    from django.db import connection

    start, results = threading.Barrier(times), []

    def run() -> None:
        start.wait()
        try:
            results.append(send())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_emails_beyond_the_person_s_daily_budget_wait_for_it(smtp, settings):
    settings.NOTIFY_EMAILS_PER_DAY = 1
    mara = make_user("mara")
    for kind, key in ((Kind.WARNING, "warning:1"), (Kind.PACE_RESULT, "result:1")):
        services.notice_decide(user_id=mara.pk, kind=kind, key=key, params={"reason": "Be kind."}, link="/")
    assert services.email_deliver(user_id=mara.pk, kind=Kind.WARNING) == 1
    assert services.email_deliver(user_id=mara.pk, kind=Kind.PACE_RESULT) == 0
    waiting = Delivery.objects.get(kind=Kind.PACE_RESULT)
    assert waiting.sent_at is None and waiting.attempts == 0
    assert waiting.due_at > timezone.now() + timedelta(hours=23), "when the day's budget holds one again"
    assert len(smtp.wait_for(1)) == 1
