"""The moderators' side of the chat in the admin: the queue, each decision through the services (with
the record it leaves), the lists of messages and suspensions, and the word list."""

import re

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.utils import formats, timezone, translation

from accounts import moderators
from accounts.models import User
from chat import selectors, services
from chat.models import BannedWord, ChatMessage, ModerationAction, Report, Room, Suspension
from tests.chat.conftest import open_table
from tests.factories import make_user
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.django_db

DECISIONS = ["warn", "suspend_1h", "suspend_24h", "suspend_forever", "remove", "ban", "dismiss"]


def said(table_id: int, author, text: str, room: str = Room.PLAYERS) -> ChatMessage:
    return ChatMessage.objects.create(table_id=table_id, room=room, author=author, text=text, shown=text)


@pytest.fixture
def moderator(mod_client):
    return User.objects.get(username="mod")


@pytest.fixture
def reported():
    """A running match whose players' room holds 15 lines, a reported one, then 15 more; ion reported
    ana's line."""
    match, (ana, ion) = human_match("americana", 2, clock=45, prefix="a")
    for index in range(15):
        said(match.table_id, ion if index % 2 else ana, f"before-{index:02d}")
    message = said(match.table_id, ana, "esti un ticalos")
    for index in range(15):
        said(match.table_id, ion if index % 2 else ana, f"after-{index:02d}")
    report = services.chat_report(user=ion, message_id=message.pk, reason=Report.Reason.ABUSE)
    return report, ana, ion


def decide(client, report: Report, decision: str, reason: str = "insulte la masa 4"):
    return client.post(f"/admin/chat/report/{report.pk}/change/", {"decision": decision, "reason": reason})


def shown_messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


def test_the_group_holds_what_moderation_needs_and_no_more():
    codenames = set(
        Group.objects.get(name=moderators.GROUP)
        .permissions.filter(content_type__app_label="chat")
        .values_list("codename", flat=True)
    )
    assert codenames == {codename for app_label, codename in moderators.PERMISSIONS if app_label == "chat"}
    assert "view_ignore" not in codenames


def test_the_queue_lists_open_reports_first_with_who_said_what(mod_client, moderator, reported):
    report, ana, ion = reported
    older = said(report.message.table_id, ana, "mesaj vechi", room=Room.PLAYERS)
    handled = services.chat_report(user=ion, message_id=older.pk, reason=Report.Reason.SPAM)
    Report.objects.filter(pk=handled.pk).update(created_at=report.created_at - timezone.timedelta(hours=1))
    services.report_dismiss(report=handled, by=moderator, reason="nimic grav")

    page = mod_client.get("/admin/chat/report/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "esti un ticalos" in html and "mesaj vechi" in html
    assert ana.username in html and ion.username in html
    assert "insults or harassment" in html
    # the open one comes first, although the handled one was reported earlier
    assert html.index("esti un ticalos") < html.index("mesaj vechi")

    only_open = mod_client.get("/admin/chat/report/?status=open").content.decode()
    assert "esti un ticalos" in only_open and "mesaj vechi" not in only_open
    only_handled = mod_client.get("/admin/chat/report/?status=handled").content.decode()
    assert "mesaj vechi" in only_handled and "esti un ticalos" not in only_handled
    by_reason = mod_client.get("/admin/chat/report/?reason=spam").content.decode()
    assert "mesaj vechi" in by_reason and "esti un ticalos" not in by_reason


def test_a_reports_page_shows_the_message_among_the_twenty_around_it_and_the_decision(mod_client, reported):
    report, _ana, _ion = reported
    page = mod_client.get(f"/admin/chat/report/{report.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<mark><strong>esti un ticalos</strong></mark>" in html
    shown = re.findall(r"(?:before|after)-\d\d", html)
    assert shown == [f"before-{i:02d}" for i in range(5, 15)] + [f"after-{i:02d}" for i in range(10)]
    select = re.search(r'<select name="decision"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None
    assert re.findall(r'<option value="([^"]*)"', select[1]) == DECISIONS
    assert 'name="reason"' in html and 'maxlength="200"' in html


@pytest.mark.parametrize("decision", DECISIONS)
def test_every_decision_leaves_a_record_with_the_moderator_and_the_reason(
    mod_client, moderator, reported, decision
):
    report, ana, _ion = reported
    response = decide(mod_client, report, decision)
    assert response.status_code == 302 and response.url == "/admin/chat/report/"
    action = ModerationAction.objects.get()
    assert action.moderator == moderator and action.reason == "insulte la masa 4"
    assert action.report == report and action.subject == ana and action.message == report.message
    report.refresh_from_db()
    assert report.handled_at is not None and report.handled_by == moderator
    # the report's own reason is never written by the decision form
    assert report.reason == Report.Reason.ABUSE
    # a decided report is read, not decided again
    page = mod_client.get(f"/admin/chat/report/{report.pk}/change/").content.decode()
    assert 'name="decision"' not in page


def test_an_hours_suspension_refuses_the_authors_messages_until_then(mod_client, reported):
    report, ana, _ion = reported
    decide(mod_client, report, "suspend_1h", "injurii")
    suspension = Suspension.objects.get(user=ana)
    assert suspension.reason == "injurii"
    assert abs((suspension.until - timezone.now()) - timezone.timedelta(hours=1)) < timezone.timedelta(
        minutes=1
    )
    assert ModerationAction.objects.get().detail == "1h"
    with pytest.raises(services.ChatRefused) as refused:
        services.chat_say(table_id=report.message.table_id, user=ana, phrase="hello")
    with translation.override("en"):
        text = refused.value.explain()
    assert formats.date_format(timezone.localtime(suspension.until), "DATETIME_FORMAT") in text
    assert "injurii" in text


def test_suspensions_for_a_day_and_for_good(mod_client, reported):
    report, ana, ion = reported
    decide(mod_client, report, "suspend_24h")
    day = Suspension.objects.get(user=ana)
    assert timezone.timedelta(hours=23) < day.until - timezone.now() <= timezone.timedelta(hours=24)
    other = said(report.message.table_id, ana, "altceva")
    decide(mod_client, services.chat_report(user=ion, message_id=other.pk, reason="abuse"), "suspend_forever")
    assert Suspension.objects.filter(user=ana, until__isnull=True).exists()
    assert selectors.suspension_of(user_id=ana.pk).until is None


def test_removing_marks_the_message_removed_for_every_reader(mod_client, moderator, reported):
    report, _ana, _ion = reported
    decide(mod_client, report, "remove")
    message = ChatMessage.objects.get(pk=report.message_id)
    assert message.removed_at is not None and message.removed_by == moderator
    assert message.text == "esti un ticalos"  # the record keeps the words
    assert selectors.Line.of(message).text == "Removed by a moderator."


def test_a_ban_deactivates_the_authors_account(mod_client, reported):
    report, ana, _ion = reported
    decide(mod_client, report, "ban")
    ana.refresh_from_db()
    assert ana.is_active is False
    assert ModerationAction.objects.get().kind == ModerationAction.Kind.BAN


def test_a_warning_is_shown_to_the_person_until_they_read_it(mod_client, reported):
    report, ana, ion = reported
    decide(mod_client, report, "warn", "fără insulte, te rog")
    warnings = selectors.warnings_unseen(user=ana)
    assert [warning.reason for warning in warnings] == ["fără insulte, te rog"]
    assert selectors.warnings_unseen(user=ion) == []
    assert not Suspension.objects.exists()
    assert ChatMessage.objects.get(pk=report.message_id).removed_at is None
    services.warnings_seen(user=ana)
    assert selectors.warnings_unseen(user=ana) == []


def test_dismissing_does_nothing_to_anyone(mod_client, reported):
    report, ana, _ion = reported
    decide(mod_client, report, "dismiss", "e o glumă între prieteni")
    assert ModerationAction.objects.get().kind == ModerationAction.Kind.DISMISS
    ana.refresh_from_db()
    assert ana.is_active and not Suspension.objects.exists()
    assert selectors.warnings_unseen(user=ana) == []
    assert ChatMessage.objects.get(pk=report.message_id).removed_at is None


@pytest.mark.parametrize("reason", ["", "   ", "x" * 201])
def test_a_decision_needs_a_reason_of_two_hundred_characters_at_most(mod_client, reported, reason):
    report, _ana, _ion = reported
    response = decide(mod_client, report, "suspend_forever", reason)
    assert response.status_code in (200, 302)
    if response.status_code == 302:  # the form took the blanks; the service refused them
        assert any("Say why" in text for text in shown_messages(mod_client.get(response.url)))
    else:
        assert response.context["adminform"].form.errors["reason"]
    assert not ModerationAction.objects.exists() and not Suspension.objects.exists()
    report.refresh_from_db()
    assert report.handled_at is None


def test_an_unknown_decision_is_refused(mod_client, reported):
    report, _ana, _ion = reported
    response = decide(mod_client, report, "shoot")
    assert response.status_code == 200 and response.context["adminform"].form.errors["decision"]
    assert not ModerationAction.objects.exists()


def test_a_moderator_cannot_ban_a_staff_member(mod_client, reported):
    report, ana, _ion = reported
    User.objects.filter(pk=ana.pk).update(is_staff=True)
    response = decide(mod_client, report, "ban")
    assert response.status_code == 302 and response.url == f"/admin/chat/report/{report.pk}/change/"
    page = mod_client.get(response.url)
    assert any("Only a superuser can ban" in text for text in shown_messages(page))
    assert "Only a superuser can ban" in page.content.decode()
    ana.refresh_from_db()
    assert ana.is_active
    assert not ModerationAction.objects.exists()
    report.refresh_from_db()
    assert report.handled_at is None
    assert not LogEntry.objects.filter(object_id=str(report.pk)).exists()


def test_reports_are_neither_added_nor_deleted_in_the_admin(mod_client, reported):
    report, _ana, _ion = reported
    assert mod_client.get("/admin/chat/report/add/").status_code == 403
    assert mod_client.post(f"/admin/chat/report/{report.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Report.objects.filter(pk=report.pk).exists()


def test_people_outside_the_group_cannot_open_the_chat_admin(client, reported):
    report, _ana, _ion = reported
    paths = [
        "/admin/chat/report/",
        f"/admin/chat/report/{report.pk}/change/",
        "/admin/chat/chatmessage/",
        "/admin/chat/suspension/",
        "/admin/chat/moderationaction/",
        "/admin/chat/bannedword/",
    ]
    client.force_login(make_user("plain"))
    for path in paths:
        response = client.get(path)
        assert response.status_code == 302 and "/login/" in response.url
    client.force_login(make_user("staffer", is_staff=True))
    for path in paths:
        assert client.get(path).status_code == 403
    assert decide(client, report, "ban").status_code == 403
    assert client.post("/admin/chat/bannedword/add/", {"word": "prost"}).status_code == 403
    assert not ModerationAction.objects.exists() and not BannedWord.objects.exists()


def test_words_added_are_stored_folded_and_mask_new_messages(mod_client, moderator, veteran):
    response = mod_client.post("/admin/chat/bannedword/add/", {"word": "PR0ŞT"})
    assert response.status_code == 302
    banned = BannedWord.objects.get()
    assert banned.word == "prost"
    action = ModerationAction.objects.get()
    assert (action.kind, action.moderator, action.detail) == (
        ModerationAction.Kind.WORD_ADD,
        moderator,
        "prost",
    )
    # the same word again, spelled otherwise, is the same entry
    mod_client.post("/admin/chat/bannedword/add/", {"word": "Próst"})
    assert BannedWord.objects.count() == 1 and ModerationAction.objects.count() == 1

    host = veteran(make_user("host"))
    table = open_table(host)
    message = services.chat_say(table_id=table.pk, user=host, text="Ești prost, ești PR0ST")
    assert message.shown == "Ești *****, ești *****"
    assert message.text == "Ești prost, ești PR0ST"


def test_a_word_too_short_is_refused_and_nothing_stored(mod_client):
    response = mod_client.post("/admin/chat/bannedword/add/", {"word": "Aa"})
    assert response.status_code == 302
    assert any("two letters" in text for text in shown_messages(mod_client.get(response.url)))
    assert not BannedWord.objects.exists() and not ModerationAction.objects.exists()


def test_words_are_deleted_one_or_many_through_the_services_and_never_edited(mod_client, moderator):
    for word in ("prost", "bou", "idiot*"):
        services.word_add(word=word, by=moderator)
    prost, bou, idiot = (BannedWord.objects.get(word=word) for word in ("prost", "bou", "idiot*"))
    page = mod_client.get(f"/admin/chat/bannedword/{prost.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert mod_client.post(f"/admin/chat/bannedword/{prost.pk}/change/", {"word": "x"}).status_code == 403

    assert mod_client.post(f"/admin/chat/bannedword/{prost.pk}/delete/", {"post": "yes"}).status_code == 302
    assert (
        mod_client.post(
            "/admin/chat/bannedword/",
            {"action": "delete_selected", "_selected_action": [bou.pk, idiot.pk], "post": "yes"},
        ).status_code
        == 302
    )
    assert not BannedWord.objects.exists()
    removed = ModerationAction.objects.filter(kind=ModerationAction.Kind.WORD_REMOVE, moderator=moderator)
    assert sorted(removed.values_list("detail", flat=True)) == ["bou", "idiot*", "prost"]


def test_the_messages_list_removes_the_selected_with_a_reason(mod_client, moderator, reported):
    report, ana, _ion = reported
    first, second = (
        said(report.message.table_id, ana, text, room=Room.WATCHERS) for text in ("before-00", "ticalosule")
    )
    page = mod_client.get("/admin/chat/chatmessage/?q=ticalos")
    html = page.content.decode()
    assert page.status_code == 200 and "ticalosule" in html and "before-00" not in html
    assert 'value="remove_messages"' in html and 'name="reason"' in html
    assert mod_client.get("/admin/chat/chatmessage/add/").status_code == 403

    chosen = {"action": "remove_messages", "_selected_action": [first.pk, second.pk]}
    response = mod_client.post("/admin/chat/chatmessage/", chosen, follow=True)
    assert any("Say why" in text for text in shown_messages(response))
    assert not ChatMessage.objects.filter(removed_at__isnull=False).exists()

    mod_client.post("/admin/chat/chatmessage/", {**chosen, "reason": "spam"})
    assert set(ChatMessage.objects.filter(removed_at__isnull=False).values_list("pk", flat=True)) == {
        first.pk,
        second.pk,
    }
    actions = ModerationAction.objects.filter(kind=ModerationAction.Kind.REMOVE)
    assert actions.count() == 2 and {a.reason for a in actions} == {"spam"}
    assert {a.moderator for a in actions} == {moderator}
    removed = mod_client.get("/admin/chat/chatmessage/?removed=yes").content.decode()
    assert "before-00" in removed and "ticalosule" in removed and "esti un ticalos" not in removed


def test_suspensions_are_lifted_with_a_reason(mod_client, moderator, reported):
    _report, ana, _ion = reported
    suspension = services.chat_suspend(subject_id=ana.pk, by=moderator, reason="injurii", length="forever")
    assert mod_client.get("/admin/chat/suspension/").status_code == 200
    assert mod_client.get(f"/admin/chat/suspension/{suspension.pk}/change/").status_code == 200
    chosen = {"action": "lift", "_selected_action": [suspension.pk]}
    mod_client.post("/admin/chat/suspension/", chosen)
    assert selectors.suspension_of(user_id=ana.pk) is not None
    mod_client.post("/admin/chat/suspension/", {**chosen, "reason": "a cerut scuze"})
    assert selectors.suspension_of(user_id=ana.pk) is None
    lift = ModerationAction.objects.get(kind=ModerationAction.Kind.LIFT)
    assert (lift.moderator, lift.subject, lift.reason) == (moderator, ana, "a cerut scuze")


def test_the_record_is_read_only_and_shows_who_did_what_to_whom_and_why(mod_client, moderator, reported):
    report, ana, _ion = reported
    decide(mod_client, report, "warn", "ultimul avertisment")
    action = ModerationAction.objects.get()
    page = mod_client.get("/admin/chat/moderationaction/").content.decode()
    assert "ultimul avertisment" in page and ana.username in page and "warned" in page and "mod" in page
    detail = mod_client.get(f"/admin/chat/moderationaction/{action.pk}/change/")
    assert detail.status_code == 200 and 'name="_save"' not in detail.content.decode()
    assert (
        mod_client.post(f"/admin/chat/moderationaction/{action.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert mod_client.get("/admin/chat/moderationaction/add/").status_code == 403


def test_a_moderator_reads_the_players_chat_only_around_a_reported_line(mod_client, reported, client):
    """The players' room is the seated people's own: a moderator reads its lines on a report's page
    only, never in the list of messages or a line's own page; the spectators' chat is listed."""
    report, ana, _ion = reported
    watched = said(report.message.table_id, ana, "din tribuna", room=Room.WATCHERS)
    listed = mod_client.get("/admin/chat/chatmessage/").content.decode()
    assert "din tribuna" in listed
    assert "before-00" not in listed and "esti un ticalos" not in listed
    assert "before-00" not in mod_client.get("/admin/chat/chatmessage/?q=before").content.decode()
    private_line = ChatMessage.objects.get(text="before-00")
    assert mod_client.get(f"/admin/chat/chatmessage/{private_line.pk}/change/").status_code == 302
    assert "before-00" not in mod_client.get("/admin/chat/moderationaction/").content.decode()
    assert "before-05" in mod_client.get(f"/admin/chat/report/{report.pk}/change/").content.decode()
    assert mod_client.get(f"/admin/chat/chatmessage/{watched.pk}/change/").status_code == 200

    client.force_login(User.objects.create_superuser("boss", "boss@example.com", "x-9-long-pass"))
    assert "before-00" in client.get("/admin/chat/chatmessage/").content.decode()


def test_a_moderator_cannot_decide_a_report_about_their_own_line(mod_client, moderator, reported):
    report, _ana, ion = reported
    own = said(report.message.table_id, moderator, "pe tine nu te intreaba nimeni")
    about_mine = services.chat_report(user=ion, message_id=own.pk, reason=Report.Reason.ABUSE)
    page = mod_client.get(f"/admin/chat/report/{about_mine.pk}/change/")
    assert page.status_code == 200 and 'name="decision"' not in page.content.decode()
    assert any("Nobody decides a case they are part of" in text for text in shown_messages(page))
    for decision in DECISIONS:
        assert decide(mod_client, about_mine, decision).status_code == 403
    with pytest.raises(services.ModerationRefused, match="Nobody decides a case they are part of"):
        services.report_dismiss(report=about_mine, by=moderator, reason="nimic grav")
    with pytest.raises(services.ModerationRefused, match="Nobody decides a case they are part of"):
        services.chat_remove(message=own, by=moderator, reason="sters de mine")
    about_mine.refresh_from_db()
    assert about_mine.handled_at is None and not ModerationAction.objects.exists()
    assert ChatMessage.objects.get(pk=own.pk).removed_at is None


def test_a_moderator_cannot_decide_a_report_they_filed_nor_another_of_the_same_line(
    mod_client, moderator, reported
):
    """One decision answers every open report of a line: deciding ion's would decide the moderator's own."""
    report, ana, _ion = reported
    Report.objects.create(message=report.message, reporter=moderator, reason=Report.Reason.ABUSE)
    page = mod_client.get(f"/admin/chat/report/{report.pk}/change/")
    assert 'name="decision"' not in page.content.decode()
    assert decide(mod_client, report, "suspend_forever").status_code == 403
    for decided in (
        lambda: services.chat_suspend(
            subject_id=ana.pk, by=moderator, reason="m-a jignit", length="forever", report=report
        ),
        lambda: services.chat_warn(subject_id=ana.pk, by=moderator, reason="m-a jignit", report=report),
        lambda: services.chat_ban(subject=ana, by=moderator, reason="m-a jignit", report=report),
        lambda: services.chat_remove(message=report.message, by=moderator, reason="m-a jignit"),
    ):
        with pytest.raises(services.ModerationRefused, match="Nobody decides a case they are part of"):
            decided()
    ana.refresh_from_db()
    assert ana.is_active and not Suspension.objects.exists() and not ModerationAction.objects.exists()
    assert not Report.objects.filter(handled_at__isnull=False).exists()


def test_a_moderator_cannot_lift_their_own_suspension(mod_client, moderator):
    other = make_user("other_mod", is_staff=True)
    other.groups.add(Group.objects.get(name=moderators.GROUP))
    suspension = services.chat_suspend(subject_id=moderator.pk, by=other, reason="injurii", length="forever")
    response = mod_client.post(
        "/admin/chat/suspension/",
        {"action": "lift", "_selected_action": [suspension.pk], "reason": "am gresit"},
        follow=True,
    )
    assert any("Nobody decides a case they are part of" in text for text in shown_messages(response))
    assert selectors.suspension_of(user_id=moderator.pk) is not None
    assert not ModerationAction.objects.filter(kind=ModerationAction.Kind.LIFT).exists()
    assert services.chat_lift(suspension=suspension, by=other, reason="a cerut scuze")
