"""A person with a bit of everything the site keeps: matches finished, running and practised, ratings,
friends and blocks, chat lines, logins. Rows the other apps' own tests write through their services
are written directly here, where only what the privacy layer does with them is under test."""

from dataclasses import dataclass
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessLog
from django.utils import timezone

from accounts.models import User
from chat.models import ChatMessage, Ignore, Room
from gameplay.models import Match
from practice import uploads
from ratings.models import Rating, RatingChange
from social.models import Block, FriendRequest, Friendship, Notice
from tests.factories import make_user
from tests.history.helpers import finished_match, play_out, seated_match
from tests.practice.test_save import practice_upload

ANA_SAYS = "ana-typed-this-at-the-private-table"
ION_SAYS = "ion-whispered-this-only-to-ana"


@dataclass
class World:
    ana: User
    ion: User
    mara: User
    finished: Match
    running: Match
    practice: Match


def chat_line(match: Match, author: User, text: str) -> ChatMessage:
    return ChatMessage.objects.create(
        table=match.table, match=match, move_index=0, room=Room.PLAYERS, author=author, text=text, shown=text
    )


@pytest.fixture
def world(ana, ion) -> World:
    mara = make_user("mara")
    finished = finished_match("americana", [ana, ion], private=True)
    running = play_out(seated_match("americana", [ana, ion], {"players": 2}, private=True), moves=3)
    practice, _new = uploads.practice_record(
        user=ana, upload=practice_upload("classic", {"players": 2, "match": "points8"})
    )
    chat_line(finished, ana, ANA_SAYS)
    chat_line(finished, ion, ION_SAYS)
    chat_line(running, ana, "ana-in-the-running-match")
    now = timezone.now()
    Rating.objects.create(user=ana, game="americana", shown=1512, peak=1530, matches=1, last_played_at=now)
    RatingChange.objects.create(
        match=finished,
        user=ana,
        game="americana",
        seat=0,
        place=1,
        mu_before=25,
        sigma_before=8.3,
        mu_after=26,
        sigma_after=8,
        before=1500,
        after=1512,
        change=12,
        at=now,
    )
    Friendship.objects.create(person=ana, friend=ion)
    Friendship.objects.create(person=ion, friend=ana)
    Block.objects.create(blocker=ana, blocked=mara)
    FriendRequest.objects.create(sender=mara, recipient=ana)
    Notice.objects.create(recipient=ana, sender=mara, kind=Notice.Kind.FRIEND_REQUEST)
    Ignore.objects.create(person=ion, ignored=ana)
    AccessLog.objects.create(
        username="ana", ip_address="203.0.113.7", user_agent="Firefox on a phone", attempt_time=now
    )
    AccessAttempt.objects.create(
        username="ana",
        ip_address="198.51.100.9",
        user_agent="curl",
        attempt_time=now - timedelta(hours=1),
        get_data="",
        post_data="",
        failures_since_start=2,
    )
    return World(ana=ana, ion=ion, mara=mara, finished=finished, running=running, practice=practice)
