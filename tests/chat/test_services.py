"""What ``chat.services`` lets people say, report and ignore, and what it refuses (with the reason)."""

import unicodedata

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone, translation

from chat import selectors, services
from chat.models import ChatMessage, Ignore, Report, Room
from chat.phrases import PHRASES
from social import services as social_services
from tests.chat.conftest import finish_matches, open_table
from tests.factories import make_user
from tests.gameplay.helpers import human_match

pytestmark = pytest.mark.django_db


def refusal(**kwargs) -> services.ChatRefused:
    with pytest.raises(services.ChatRefused) as refused:
        services.chat_say(**kwargs)
    return refused.value


def explained(error: services.ChatRefused) -> str:
    with translation.override("en"):
        return error.explain()


@pytest.fixture
def host(veteran):
    return veteran(make_user("host"))


@pytest.fixture
def table(host):
    return open_table(host)


# Saying things


def test_a_quick_phrase_is_kept_by_its_key(table, host):
    message = services.chat_say(table_id=table.pk, user=host, phrase="gg")
    assert (message.phrase, message.text, message.shown, message.room) == ("gg", "", "", Room.PLAYERS)
    assert message.match is None and message.move_index == 0


def test_only_the_quick_phrases_keys_are_phrases(table, host):
    assert refusal(table_id=table.pk, user=host, phrase="Good game!").template == (
        "That is not one of the quick phrases."
    )
    assert refusal(table_id=table.pk, user=host, phrase="nonsense").template == (
        "That is not one of the quick phrases."
    )
    assert not ChatMessage.objects.exists()


def test_a_phrase_or_a_text_not_both_nor_neither(table, host):
    for kwargs in ({"phrase": "gg", "text": "salut"}, {}):
        assert "Choose a quick phrase" in explained(refusal(table_id=table.pk, user=host, **kwargs))
    assert refusal(table_id=table.pk, user=host, text=" \u200b\u202e ").template == "Type a message first."


def test_a_text_holds_two_hundred_characters_and_the_refusal_says_so(table, host):
    error = refusal(table_id=table.pk, user=host, text="a" * 201)
    assert error.params == {"count": 200}
    assert "200" in explained(error)
    assert not ChatMessage.objects.exists()
    assert len(services.chat_say(table_id=table.pk, user=host, text="b" * 200).text) == 200


def test_control_and_direction_characters_are_stripped_and_spaces_run_together(table, host):
    message = services.chat_say(
        table_id=table.pk,
        user=host,
        text="  Sa\u0007lut\u200b \u202eabc\u202c\u2066x\u2069\ufeff\n\tce\r\nfaci  ",
    )
    assert message.text == "Salut abcx ce faci"
    assert message.shown == "Salut abcx ce faci"


def test_romanian_diacritics_stay_and_decomposed_input_is_composed(table, host):
    typed = "Bună, ștrengarule! Țară, îți văd ăsta."
    decomposed = unicodedata.normalize("NFD", typed)
    assert decomposed != typed
    message = services.chat_say(table_id=table.pk, user=host, text=decomposed)
    assert message.text == typed
    assert "\u0219" in message.text and "\u021a" in message.text  # ș and Ț, with the comma below
    message.refresh_from_db()
    assert message.text == typed and message.shown == typed


def test_the_message_after_the_burst_is_refused_until_the_budget_refills(settings, table, host):
    burst = settings.CHAT_MESSAGES_PER_10_SECONDS
    keys = list(PHRASES)
    assert burst < len(keys)
    for key in keys[:burst]:
        services.chat_say(table_id=table.pk, user=host, phrase=key)
    error = refusal(table_id=table.pk, user=host, phrase=keys[burst])
    assert "too quickly" in explained(error)
    assert ChatMessage.objects.count() == burst
    # the budget is the person's: someone else at the table still speaks
    other = make_user("other")
    assert services.chat_say(table_id=table.pk, user=other, phrase="hello").room == Room.WATCHERS


def test_saying_the_same_thing_again_is_refused(settings, table, host):
    settings.CHAT_MESSAGES_PER_10_SECONDS = 50  # refused messages spend the budget too
    services.chat_say(table_id=table.pk, user=host, phrase="hello")
    assert refusal(table_id=table.pk, user=host, phrase="hello").template == "You have just said that."
    services.chat_say(table_id=table.pk, user=host, text="Salut")
    # the same once folded: capitals and look-alikes do not make it new
    assert refusal(table_id=table.pk, user=host, text="SALUT").template == "You have just said that."
    assert refusal(table_id=table.pk, user=host, text="5alut").template == "You have just said that."
    services.chat_say(table_id=table.pk, user=host, text="Salut, ce faci?")
    assert ChatMessage.objects.count() == 3


def test_a_phrases_only_table_refuses_text_but_takes_phrases(table, host, veteran):
    guest = veteran(make_user("guest"))
    with pytest.raises(services.ChatRefused):
        services.chat_set_phrases_only(table_id=table.pk, user=guest, on=True)
    services.chat_set_phrases_only(table_id=table.pk, user=host, on=True)
    for person in (host, guest):
        error = refusal(table_id=table.pk, user=person, text="salut")
        assert error.template == "At this table the host allows quick phrases only."
        services.chat_say(table_id=table.pk, user=person, phrase="hello")
    services.chat_set_phrases_only(table_id=table.pk, user=host, on=False)
    assert services.chat_say(table_id=table.pk, user=guest, text="salut").text == "salut"


def test_a_new_account_sends_phrases_until_it_has_finished_enough_matches(settings, table):
    newcomer = make_user("newcomer")
    finish_matches(newcomer, settings.CHAT_FREE_TEXT_MATCHES - 1)
    error = refusal(table_id=table.pk, user=newcomer, text="salut")
    assert error.params == {"count": settings.CHAT_FREE_TEXT_MATCHES}
    assert str(settings.CHAT_FREE_TEXT_MATCHES) in explained(error)
    assert services.chat_say(table_id=table.pk, user=newcomer, phrase="hello").phrase == "hello"
    finish_matches(newcomer, 1)
    assert services.chat_say(table_id=table.pk, user=newcomer, text="salut").text == "salut"


def test_practice_and_unfinished_matches_do_not_count_towards_typing(settings, table):
    from gameplay.models import Match

    newcomer = make_user("newcomer")
    finish_matches(newcomer, settings.CHAT_FREE_TEXT_MATCHES)
    assert selectors.may_type(user=newcomer)
    one = Match.objects.filter(participants__user=newcomer).first()
    Match.objects.filter(pk=one.pk).update(practice=True)
    assert not selectors.may_type(user=newcomer)
    Match.objects.filter(pk=one.pk).update(practice=False, status=Match.Status.ABORTED)
    assert not selectors.may_type(user=newcomer)
    Match.objects.filter(pk=one.pk).update(status=Match.Status.FINISHED)
    assert selectors.may_type(user=newcomer)


def test_matches_against_bots_alone_do_not_unlock_typing(settings, table):
    """Quick matches against bots cost a script nothing: only matches with another person count."""
    newcomer = make_user("newcomer")
    finish_matches(newcomer, settings.CHAT_FREE_TEXT_MATCHES, against_bots=True)
    assert selectors.finished_matches(user=newcomer) == 0
    error = refusal(table_id=table.pk, user=newcomer, text="salut")
    assert error.params == {"count": settings.CHAT_FREE_TEXT_MATCHES}
    assert "with other people" in explained(error)
    finish_matches(newcomer, settings.CHAT_FREE_TEXT_MATCHES)
    assert services.chat_say(table_id=table.pk, user=newcomer, text="salut").text == "salut"


def test_an_unconfirmed_account_sends_phrases_only_and_is_told_to_confirm(settings, table):
    newcomer = make_user("newcomer", fresh=True)
    finish_matches(newcomer, settings.CHAT_FREE_TEXT_MATCHES)
    error = refusal(table_id=table.pk, user=newcomer, text="salut")
    assert "email address is confirmed" in explained(error) and "profile page" in explained(error)
    with translation.override("ro"):
        assert "profil" in error.explain()
    assert services.chat_say(table_id=table.pk, user=newcomer, phrase="hello").phrase == "hello"
    composer = selectors.drawer(table=table, user=newcomer, logs=False)
    assert not composer.email_confirmed and not composer.may_type
    # the link opened (in another tab, say): the same user object, as an open page holds it, now types
    type(newcomer).objects.filter(pk=newcomer.pk).update(email_confirmed_at=timezone.now())
    assert services.chat_say(table_id=table.pk, user=newcomer, text="salut").text == "salut"
    composer = selectors.drawer(table=table, user=newcomer, logs=False)
    assert composer.email_confirmed and composer.may_type


def test_players_speak_in_the_players_room_and_spectators_in_the_watchers(veteran):
    match, (ana, _ion) = human_match("americana", 2, clock=45, prefix="r")
    watcher = veteran(make_user("watcher"))
    said_by_ana = services.chat_say(table_id=match.table_id, user=ana, phrase="luck")
    said_by_watcher = services.chat_say(table_id=match.table_id, user=watcher, text="Hai Ana!")
    assert said_by_ana.room == Room.PLAYERS and said_by_ana.match_id == match.pk
    assert said_by_watcher.room == Room.WATCHERS and said_by_watcher.match_id == match.pk
    players = selectors.room_lines(table_id=match.table_id, room=Room.PLAYERS, hidden=frozenset())
    watchers = selectors.room_lines(table_id=match.table_id, room=Room.WATCHERS, hidden=frozenset())
    assert [line.id for line in players] == [said_by_ana.pk]
    assert [line.id for line in watchers] == [said_by_watcher.pk]


def test_a_private_tables_chat_is_closed_to_outsiders(host, veteran):
    private = open_table(host, private=True)
    outsider = veteran(make_user("outsider"))
    assert refusal(table_id=private.pk, user=outsider, phrase="hello").template == (
        "This table's chat is not open to you."
    )
    assert (
        refusal(table_id=10**9, user=host, phrase="hello").template == "This table's chat is not open to you."
    )


def test_the_logged_out_are_refused(table):
    assert refusal(table_id=table.pk, user=AnonymousUser(), phrase="hello").template == "Log in to chat."
    assert not ChatMessage.objects.exists()


def test_listed_words_are_masked_in_what_is_shown_and_kept_as_typed(table, host):
    mod = make_user("mod", is_superuser=True)
    services.word_add(word="Prost", by=mod)
    message = services.chat_say(table_id=table.pk, user=host, text="Ești PR0ST!")
    assert message.text == "Ești PR0ST!"
    assert message.shown == "Ești *****!"
    assert selectors.Line.of(message).text == "Ești *****!"


def test_a_suspended_person_is_refused_with_until_when_and_why(table, host):
    mod = make_user("mod", is_superuser=True)
    services.chat_suspend(subject_id=host.pk, by=mod, reason="insulte", length="24h")
    error = refusal(table_id=table.pk, user=host, phrase="hello")
    assert error.until is not None and error.params == {"reason": "insulte"}
    assert "insulte" in explained(error) and "until" in explained(error)
    services.chat_lift(suspension=selectors.suspension_of(user_id=host.pk), by=mod, reason="mistake")
    assert services.chat_say(table_id=table.pk, user=host, phrase="hello")


# Reports


@pytest.fixture
def played():
    """A running match of two (players' room) and a message of each player."""
    match, (ana, ion) = human_match("americana", 2, clock=45, prefix="q")
    return match, ana, ion, services.chat_say(table_id=match.table_id, user=ana, phrase="luck")


def test_a_reader_reports_a_message_once(played):
    _match, _ana, ion, message = played
    first = services.chat_report(user=ion, message_id=message.pk, reason=Report.Reason.ABUSE)
    again = services.chat_report(user=ion, message_id=message.pk, reason=Report.Reason.SPAM)
    assert first.pk == again.pk and Report.objects.count() == 1
    assert Report.objects.get().reason == Report.Reason.ABUSE and first.handled_at is None


def test_nobody_reports_their_own_message_nor_for_no_reason(played):
    _match, ana, ion, message = played
    with pytest.raises(services.ChatRefused, match="your own message"):
        services.chat_report(user=ana, message_id=message.pk, reason=Report.Reason.ABUSE)
    with pytest.raises(services.ChatRefused, match="Choose why"):
        services.chat_report(user=ion, message_id=message.pk, reason="boredom")
    assert not Report.objects.exists()


def test_a_players_room_message_cannot_be_reported_by_an_outsider(played, veteran):
    match, _ana, _ion, message = played
    outsider = make_user("outsider")
    with pytest.raises(services.ChatRefused, match="no longer there"):
        services.chat_report(user=outsider, message_id=message.pk, reason=Report.Reason.ABUSE)
    with pytest.raises(services.ChatRefused, match="no longer there"):
        services.chat_ignore(user=outsider, message_id=message.pk)
    # a spectators' line is the outsider's to report
    watcher = veteran(make_user("watcher"))
    said = services.chat_say(table_id=match.table_id, user=watcher, text="ce joc")
    assert (
        services.chat_report(user=outsider, message_id=said.pk, reason=Report.Reason.SPAM).reporter
        == outsider
    )
    assert Report.objects.count() == 1
    with pytest.raises(services.ChatRefused):
        services.chat_report(user=AnonymousUser(), message_id=said.pk, reason=Report.Reason.SPAM)


# Ignoring and blocks


def test_ignoring_hides_the_author_everywhere_until_unignored(played):
    match, ana, ion, message = played
    with pytest.raises(services.ChatRefused, match="ignore yourself"):
        services.chat_ignore(user=ana, message_id=message.pk)
    services.chat_ignore(user=ion, message_id=message.pk)
    services.chat_ignore(user=ion, message_id=message.pk)
    assert Ignore.objects.filter(person=ion, ignored=ana).count() == 1
    hidden = selectors.hidden_authors(user=ion)
    assert hidden == frozenset({ana.pk})
    assert selectors.room_lines(table_id=match.table_id, room=Room.PLAYERS, hidden=hidden) == []
    assert selectors.hidden_authors(user=ana) == frozenset()
    assert services.chat_unignore(user=ion, ignored_id=ana.pk) is True
    assert services.chat_unignore(user=ion, ignored_id=ana.pk) is False
    assert selectors.hidden_authors(user=ion) == frozenset()
    lines = selectors.room_lines(table_id=match.table_id, room=Room.PLAYERS, hidden=frozenset())
    assert [line.id for line in lines] == [message.pk]


def test_a_block_hides_both_people_from_each_other(played):
    _match, ana, ion, _message = played
    eva = make_user("eva")
    social_services.block(user=ana, other=ion)
    assert ion.pk in selectors.hidden_authors(user=ana)
    assert ana.pk in selectors.hidden_authors(user=ion)
    assert selectors.hidden_authors(user=eva) == frozenset()
    assert selectors.hidden_authors(user=AnonymousUser()) == frozenset()
