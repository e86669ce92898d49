"""One place decides what a person is told away from the site, and how: by their settings (kind ×
way), never while they have a page of the site open (the site's notice tells them) nor about a match
they are watching, a push only to a browser they subscribed, an email only to a confirmed address,
and nothing during their quiet hours (it waits for their end). What it decides goes in the outbox
(``Delivery``), one row per person, way and thing, so the same news heard twice is kept once."""

from datetime import datetime

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from gameplay import presence
from gameplay.models import Match, Participant
from social.models import Notice

from .. import events, push
from ..models import Delivery, Kind, PushSubscription, Way, preference_of
from ..texts import FINISHED, MISSED
from .shared import next_email

NOTICE_KINDS = {
    Notice.Kind.FRIEND_REQUEST: Kind.FRIEND_REQUEST,
    Notice.Kind.INVITATION: Kind.INVITATION,
    Notice.Kind.TOURNAMENT_STARTING: Kind.TOURNAMENT,
}
"""The site's notices that are told away from it too (an accepted request or a cancelled tournament
waits under the bell)."""


def notice_decide(
    *,
    user_id: int,
    kind: str,
    key: str,
    params: dict,
    link: str,
    watching: tuple[int, int] | None = None,
) -> list[Delivery]:
    """Put in the outbox what ``user_id`` is to be sent about ``key`` (e.g. "turn:<match>:<version>"),
    and queue what is due at once; ``watching``: the (table, seat) whose open page makes it needless."""
    if watching is not None and presence.present(*watching):
        return []
    if presence.site_online(user_id):
        return []
    user = User.objects.filter(pk=user_id, is_active=True, erased_at__isnull=True).first()
    if user is None:
        return []
    preference = preference_of(user_id)
    now = timezone.now()
    not_before = preference.quiet_end(now) or now
    kept = []
    with transaction.atomic():
        if (
            preference.sends(kind, Way.PUSH)
            and push.configured()
            and PushSubscription.objects.filter(user_id=user_id).exists()
        ):
            kept.append(_keep(user_id, kind, Way.PUSH, key, params, link, not_before))
        if preference.sends(kind, Way.EMAIL) and user.email and user.email_confirmed_at:
            kept.append(
                _keep(
                    user_id,
                    kind,
                    Way.EMAIL,
                    key,
                    params,
                    link,
                    max(not_before, next_email(user_id, kind, now)),
                )
            )
    return kept


def _keep(user_id: int, kind: str, way: str, key: str, params: dict, link: str, due_at: datetime) -> Delivery:
    delivery, made = Delivery.objects.get_or_create(
        user_id=user_id,
        way=way,
        key=key,
        defaults={"kind": kind, "params": params, "link": link, "due_at": due_at},
    )
    if made and due_at <= timezone.now():
        if way == Way.PUSH:
            events.push_queue_on_commit(delivery.pk)
        else:
            events.email_queue_on_commit(user_id, kind)
    return delivery


def turn_began(*, match_id: int, table_id: int, seat: int, user_id: int, version: int) -> list[Delivery]:
    """A person's turn at a table at their own pace."""
    game = Match.objects.filter(pk=match_id).values_list("game", flat=True).first()
    return notice_decide(
        user_id=user_id,
        kind=Kind.YOUR_TURN,
        key=f"turn:{match_id}:{version}",
        params={"match": match_id, "table": table_id, "seat": seat, "game": game},
        link=reverse("gameplay:table", args=[table_id]),
        watching=(table_id, seat),
    )


def move_stood_in(
    *, match_id: int, table_id: int, seat: int, user_id: int, missed: int, for_good: bool
) -> list[Delivery]:
    """A bot played a person's move whose time ran out (and, ``for_good``, keeps their seat)."""
    game = Match.objects.filter(pk=match_id).values_list("game", flat=True).first()
    return notice_decide(
        user_id=user_id,
        kind=Kind.PACE_RESULT,
        key=f"missed:{match_id}:{missed}",
        params={
            "match": match_id,
            "table": table_id,
            "event": MISSED,
            "missed": missed,
            "for_good": for_good,
            "game": game,
        },
        link=reverse("gameplay:table", args=[table_id]),
        watching=(table_id, seat),
    )


def match_ended(*, match_id: int) -> list[Delivery]:
    """A match decided: at a table at its own pace, each person who played in it is told."""
    match = Match.objects.filter(pk=match_id, table__pace_hours__gt=0, practice=False).first()
    if match is None:
        return []
    seats = dict(
        Participant.objects.filter(match=match, user__isnull=False)
        .values_list("user_id", "seat")
        .order_by("from_move")
    )
    return [
        delivery
        for user_id, seat in seats.items()
        for delivery in notice_decide(
            user_id=user_id,
            kind=Kind.PACE_RESULT,
            key=f"result:{match_id}",
            params={"match": match_id, "table": match.table_id, "event": FINISHED, "game": match.game},
            link=reverse("history:match", args=[match_id]),
            watching=(match.table_id, seat),
        )
    ]


def notice_kept(*, notice_id: int) -> list[Delivery]:
    """A notice of the site's (a friend request, an invitation, a tournament starting)."""
    notice = Notice.objects.filter(pk=notice_id, kind__in=NOTICE_KINDS).select_related("sender").first()
    if notice is None:
        return []
    kind = NOTICE_KINDS[notice.kind]
    links = {Kind.FRIEND_REQUEST: reverse("social:friends"), Kind.INVITATION: reverse("social:notices")}
    return notice_decide(
        user_id=notice.recipient_id,
        kind=kind,
        key=f"notice:{notice_id}",
        params={
            "notice": notice_id,
            "from": notice.sender.public_name if notice.sender else "",
            "name": notice.subject,
        },
        link=links.get(kind, notice.link),
    )


def warning_given(*, user_id: int, action_id: int) -> list[Delivery]:
    """A moderator's warning, in their words (the chat is read only where it is installed)."""
    from chat.models import ModerationAction

    reason = ModerationAction.objects.filter(pk=action_id).values_list("reason", flat=True).first()
    if reason is None:
        return []
    return notice_decide(
        user_id=user_id,
        kind=Kind.WARNING,
        key=f"warning:{action_id}",
        params={"reason": reason},
        link=reverse("home"),
    )
