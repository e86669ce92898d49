"""A match's chat stays with it: its page and its replay show the lines to those who played it and
its spectators' lines to moderators (each line in the reader's language, at the move it was said), to
nobody else; the page's plain forms report a line or ignore its author."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.translation import gettext, ngettext

from chat.models import ChatMessage, Ignore, Report, Room
from chat.phrases import PHRASES
from tests.factories import make_user
from tests.history.helpers import finished_match

pytestmark = pytest.mark.django_db


def said(match, author, *, move: int, phrase: str = "", text: str = "", room=Room.PLAYERS, removed=False):
    """A line as ``chat.services.chat_say`` keeps it, said after ``move`` moves."""
    return ChatMessage.objects.create(
        table_id=match.table_id,
        match=match,
        move_index=move,
        room=room,
        author=author,
        phrase=phrase,
        text=text,
        shown=text,
        removed_at=timezone.now() if removed else None,
    )


@pytest.fixture
def chatted(ana, ion):
    """A finished match at a public table (anyone logged in opens its page) and what was said in it."""
    match = finished_match("americana", [ana, ion], private=False)
    rail = make_user("rail")
    late = min(match.moves_made, 5)
    lines = {
        "gg": said(match, ana, move=0, phrase="gg"),
        "typed": said(match, ion, move=late, text="bravo partenere"),
        "rail": said(match, rail, move=late, text="hai ana", room=Room.WATCHERS),
        "removed": said(match, ion, move=late, text="vorbe urate", removed=True),
    }
    return match, lines


def page(client, user, match, name: str = "match", language: str = "en", **query):
    client.force_login(user)
    response = client.get(reverse(f"history:{name}", args=[match.pk]), query, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def in_language(language: str, words: str) -> str:
    with translation.override(language):
        return escape(gettext(words))


@pytest.mark.parametrize("language", ["ro", "en"])
def test_the_players_read_the_matchs_chat_in_their_language_with_the_move(client, ana, chatted, language):
    match, lines = chatted
    html = page(client, ana, match, language=language)
    with translation.override(language):
        assert escape(str(PHRASES["gg"])) in html
        late = lines["typed"].move_index
        assert (
            escape(ngettext("after %(moves)s move", "after %(moves)s moves", late) % {"moves": late}) in html
        )
    assert "bravo partenere" in html and "hai ana" in html
    assert in_language(language, "Removed by a moderator.") in html and "vorbe urate" not in html
    assert f'data-move="{late}"' in html and 'data-move="0"' in html
    # Report and Ignore on the lines of others (not on one's own, nor on a removed one).
    forms = re.findall(r'name="message" value="(\d+)"', html)
    assert str(lines["typed"].pk) in forms and str(lines["rail"].pk) in forms
    assert str(lines["gg"].pk) not in forms and str(lines["removed"].pk) not in forms
    assert "csrfmiddlewaretoken" in html and reverse("chat:report") in html and reverse("chat:ignore") in html


def test_moderators_read_its_spectators_chat_and_nobody_else_knows_there_was_a_chat(client, chatted):
    """The players' room is the seated people's own: a moderator reads it only as the lines around a
    reported one, in the admin; a superuser reads it whole."""
    match, _lines = chatted
    moderator = make_user("moderator", is_staff=True)
    moderator.user_permissions.add(Permission.objects.get(codename="view_chatmessage"))
    html = page(client, moderator, match)
    assert "hai ana" in html and 'data-testid="match-chat"' in html
    assert "bravo partenere" not in html and "bravo partenere" not in page(client, moderator, match, "replay")
    boss = make_user("boss", is_staff=True, is_superuser=True)
    assert "bravo partenere" in page(Client(), boss, match)
    staff = make_user("staff", is_staff=True)  # staff who may not read chats
    for outsider in (make_user("stranger"), staff):
        html = page(Client(), outsider, match)
        assert 'data-testid="match-chat"' not in html
        for words in ("bravo partenere", "hai ana", "vorbe urate", str(PHRASES["gg"])):
            assert words not in html
        replay = page(Client(), outsider, match, "replay")
        assert "bravo partenere" not in replay and "match-chat" not in replay
    anonymous = Client().get(reverse("history:match", args=[match.pk]))
    assert anonymous.status_code == 302 and "bravo" not in anonymous.content.decode()


def test_the_replay_holds_each_line_with_its_move_and_shows_those_said_by_the_step(client, ana, chatted):
    match, lines = chatted
    late = lines["typed"].move_index
    first = page(client, ana, match, "replay", step=0)
    assert 'data-made="0"' in first
    typed = re.search(rf'<li id="match-chat-line-{lines["typed"].pk}"[^>]*>', first).group(0)
    assert f'data-move="{late}"' in typed and "hidden" in typed
    opening = re.search(rf'<li id="match-chat-line-{lines["gg"].pk}"[^>]*>', first).group(0)
    assert 'data-move="0"' in opening and "hidden" not in opening
    last = page(client, ana, match, "replay", step=10_000)
    assert f'data-made="{match.moves_made}"' in last
    assert not re.search(r'<li id="match-chat-line-\d+"[^>]*hidden', last)
    assert "bravo partenere" in last
    # htmx asks for the step alone: the lines stay on the page, the step says how many moves it made.
    alone = client.get(reverse("history:replay", args=[match.pk]), {"step": 1}, HTTP_HX_REQUEST="true")
    assert "data-made=" in alone.content.decode() and "match-chat-line" not in alone.content.decode()


def post(client, name: str, **data):
    return client.post(reverse(f"chat:{name}"), data)


def said_back(response) -> tuple[str, str]:
    """The message the form's answer added (its level, its words): the last of those queued."""
    message = list(response.wsgi_request._messages)[-1]
    return message.level_tag, str(message)


def test_report_and_ignore_from_the_match_page(client, ana, ion, chatted):
    match, lines = chatted
    client.force_login(ana)
    back = reverse("history:match", args=[match.pk])
    response = post(client, "report", message=str(lines["typed"].pk), reason="abuse", next=back)
    assert response.status_code == 302 and response["Location"] == back
    assert Report.objects.filter(message=lines["typed"], reporter=ana, reason="abuse").exists()
    assert said_back(response) == ("success", gettext("Thank you: a moderator will read it."))

    response = post(client, "ignore", message=str(lines["typed"].pk), next=back)
    assert response["Location"] == back and Ignore.objects.filter(person=ana, ignored=ion).exists()
    assert said_back(response)[0] == "success" and "ion" in said_back(response)[1]
    html = client.get(back).content.decode()
    assert "bravo partenere" not in html and "hai ana" in html  # ion's lines are gone for ana

    # Refused by the service: shown as an error, nothing written.
    for data in (
        {"message": str(lines["gg"].pk), "reason": "spam"},  # her own line
        {"message": str(lines["rail"].pk), "reason": "nosuch"},
        {"message": "99999999", "reason": "spam"},
        {"message": "12345678901234567890", "reason": "spam"},
        {"message": "1; DROP", "reason": "spam"},
        {"reason": "spam"},
    ):
        response = post(client, "report", next=back, **data)
        assert response["Location"] == back
        assert said_back(response)[0] == "error", data
    assert Report.objects.count() == 1


def test_a_players_line_of_another_match_cannot_be_reported_or_its_author_ignored(client, chatted):
    _match, lines = chatted
    client.force_login(make_user("stranger"))
    for name in ("report", "ignore"):
        response = post(client, name, message=str(lines["typed"].pk), reason="spam", next="/")
        assert said_back(response) == ("error", gettext("That message is no longer there."))
    assert not Report.objects.exists() and not Ignore.objects.exists()


def test_the_forms_refuse_get_anonymous_visitors_a_bad_next_and_a_missing_token(client, ana, chatted):
    _match, lines = chatted
    for name in ("report", "ignore"):
        anonymous = post(Client(), name, message=str(lines["typed"].pk), reason="spam")
        assert anonymous.status_code == 302 and reverse("accounts:login") in anonymous["Location"]
    client.force_login(ana)
    for name in ("report", "ignore"):
        assert client.get(reverse(f"chat:{name}"), {"message": lines["typed"].pk}).status_code == 405
    for bad in (
        "https://evil.example/",
        "//evil.example/x",
        "javascript:alert(1)",
        "evil",
        "/\\evil.example",
    ):
        response = post(client, "report", message=str(lines["rail"].pk), reason="spam", next=bad)
        assert response.status_code == 302 and response["Location"] == reverse("home"), bad
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(ana)
    assert post(guarded, "ignore", message=str(lines["typed"].pk)).status_code == 403
    assert not Ignore.objects.exists()


def test_reports_and_ignores_are_rate_limited_by_the_service(client, ana, chatted, settings):
    settings.CHAT_REPORTS_PER_HOUR = 2
    match, _lines = chatted
    client.force_login(ana)
    others = [said(match, make_user(f"talker{index}"), move=1, text=f"line {index}") for index in range(3)]
    outcomes = [
        post(client, "report", message=str(line.pk), reason="spam", next="/") for line in others[:2]
    ] + [post(client, "ignore", message=str(others[2].pk), next="/")]
    assert [said_back(response)[0] for response in outcomes] == ["success", "success", "error"]
    too_many = gettext("You have reported or ignored too many times: try again later.")
    assert said_back(outcomes[2])[1] == too_many
    assert Report.objects.count() == 2 and not Ignore.objects.exists()
