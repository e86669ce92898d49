"""Everything the site keeps about one person, as the archive they download: a README and one JSON
file. It reads; it never writes. Other people appear only as the names their seats show on the
public match page, and a running match gives its public moves only (no hand, no stock, no seed)."""

import io
import json
import zipfile
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from axes.models import AccessAttempt, AccessLog
from django.apps import apps
from django.db.models import Prefetch
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import User
from accounts.services import login_name
from api.selectors import tokens_of
from gameplay.models import Holiday, Match, Move, Participant, RoundResult, SeatChange
from notifications.models import Delivery, Preference, PushSubscription
from ratings.models import Rating, RatingChange
from reviews.models import Review
from social.models import Block, FriendRequest, Friendship, Notice
from tournaments.models import Entry, Trophy

FORMAT = "septica-personal-data/1"
DATA_FILE = "data.json"
README_FILE = "README.txt"


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _profile(user: User) -> dict[str, Any]:
    return {
        "username": user.username,
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": _time(user.date_joined),
        "last_login": _time(user.last_login),
        "active": user.is_active,
        "staff": user.is_staff,
    }


def _bot_accounts(user: User) -> dict[str, list[dict[str, Any]]]:
    """The bot accounts the person registered; a closed one is erased: its name is gone."""
    return {
        "bot_accounts": [
            {
                "username": None if bot.erased_at else bot.username,
                "description": bot.bot_description,
                "registered": _time(bot.date_joined),
                "closed": _time(bot.erased_at),
                "active": bot.is_active,
            }
            for bot in User.objects.filter(bot_owner=user, is_bot_account=True).order_by("pk")
        ]
    }


def _logins(user: User) -> dict[str, list[dict[str, Any]]]:
    name = login_name(user.username)
    return {
        "logins": [
            {
                "time": _time(log.attempt_time),
                "logged_out": _time(log.logout_time),
                "address": log.ip_address,
                "browser": log.user_agent,
            }
            for log in AccessLog.objects.filter(username=name).order_by("attempt_time")
        ],
        "failed_logins": [
            {
                "last_time": _time(attempt.attempt_time),
                "address": attempt.ip_address,
                "browser": attempt.user_agent,
                "failures": attempt.failures_since_start,
            }
            for attempt in AccessAttempt.objects.filter(username=name).order_by("attempt_time")
        ],
    }


def _match(match: Match, user: User) -> dict[str, Any]:
    """A match as its player may read it: who sat where, every move's action (public once made: a
    card played, a draw without the card drawn), the score sheet and the result. The state, the seed
    and the moves' private events stay out, so no hand or stock order leaves the server."""
    participants = list(match.participants.all())
    return {
        "id": match.pk,
        "game": match.game,
        "options": match.options,
        "status": match.status,
        "practice": match.practice,
        "table": match.table_id,
        "private_table": match.table.is_private,
        "own_pace_hours_a_move": match.table.pace_hours or None,
        "started_at": _time(match.started_at),
        "finished_at": _time(match.finished_at),
        "your_seats": sorted({p.seat for p in participants if p.user_id == user.pk}),
        "seats": [
            {
                "seat": p.seat,
                "name": p.display_name,
                "bot_level": p.bot_level or None,
                "you": p.user_id == user.pk,
                "from_move": p.from_move,
                "until_move": p.until_move,
            }
            for p in participants
        ],
        "seat_changes": [
            {"seat": change.seat, "change": change.kind, "after_move": change.after_move}
            for change in match.seat_changes.all()
        ],
        "moves": [
            {
                "number": move.seq,
                "seat": move.seat,
                "by": move.actor,
                "action": move.action,
                "time": _time(move.created_at),
            }
            for move in match.moves.all()
        ],
        "score_sheet": [{"number": row.number, **row.summary} for row in match.rounds.all()],
        "result": match.result,
        "abort_reason": match.abort_reason or None,
    }


def _matches(user: User) -> Iterator[dict[str, Any]]:
    played = Match.objects.filter(participants__user=user).distinct().order_by("started_at", "pk")
    prefetched = played.select_related("table").prefetch_related(
        Prefetch("participants", queryset=Participant.objects.order_by("seat", "from_move", "pk")),
        Prefetch(
            "moves", queryset=Move.objects.only("match_id", "seq", "seat", "action", "actor", "created_at")
        ),
        Prefetch("rounds", queryset=RoundResult.objects.order_by("number")),
        Prefetch("seat_changes", queryset=SeatChange.objects.order_by("after_move", "pk")),
    )
    for match in prefetched.iterator(chunk_size=200):
        yield _match(match, user)


def _ratings(user: User) -> dict[str, list[dict[str, Any]]]:
    return {
        "ratings": [
            {
                "game": r.game,
                "rating": r.shown,
                "peak": r.peak,
                "mu": r.mu,
                "sigma": r.sigma,
                "rated_matches": r.matches,
                "established": r.established,
                "last_rated_match": _time(r.last_played_at),
            }
            for r in Rating.objects.filter(user=user).order_by("game")
        ],
        "rating_changes": [
            {
                "match": c.match_id,
                "game": c.game,
                "time": _time(c.at),
                "place": c.place,
                "before": c.before,
                "after": c.after,
                "change": c.change,
                "left_the_match": c.left,
                "voided": c.voided,
            }
            for c in RatingChange.objects.filter(user=user).order_by("at", "pk")
        ],
    }


def _holidays(user: User) -> dict[str, list[dict[str, Any]]]:
    return {
        "holidays": [
            {"from": _time(holiday.starts_at), "until": _time(holiday.ends_at)}
            for holiday in Holiday.objects.filter(user=user).order_by("starts_at")
        ]
    }


def _access_tokens(user: User) -> dict[str, list[dict[str, Any]]]:
    """The tokens the person made (never the token: the site keeps only a digest of it)."""
    return {
        "access_tokens": [
            {
                "name": token.name,
                "acts_as": token.holder.username,
                "scopes": token.scopes,
                "starts_with": token.prefix,
                "made": _time(token.created_at),
                "expires": _time(token.expires_at),
                "last_used": _time(token.last_used_at),
                "revoked": _time(token.revoked_at),
            }
            for token in tokens_of(user)
        ]
    }


def _reviews(user: User) -> dict[str, list[dict[str, Any]]]:
    return {
        "reviews": [
            {
                "match": review.match_id,
                "seat": review.seat,
                "status": review.status,
                "requested_at": _time(review.created_at),
                "accuracy": review.accuracy,
                "decisions": review.decisions,
            }
            for review in Review.objects.filter(user=user).order_by("created_at", "pk")
        ]
    }


def _tournaments(user: User) -> dict[str, list[dict[str, Any]]]:
    return {
        "tournaments": [
            {
                "tournament": e.tournament.name,
                "kind": e.tournament.kind,
                "game": e.tournament.game,
                "starts": _time(e.tournament.starts_at),
                "joined": _time(e.joined_at),
                "points": e.points,
                "matches": e.matches,
                "wins": e.wins,
                "place": e.rank,
                "disqualified": _time(e.disqualified_at),
            }
            for e in Entry.objects.filter(user=user).select_related("tournament").order_by("joined_at")
        ],
        "trophies": [
            {"tournament": t.tournament.name, "place": t.place, "points": t.points, "won": _time(t.won_at)}
            for t in Trophy.objects.filter(user=user).select_related("tournament").order_by("won_at")
        ],
    }


def _social(user: User) -> dict[str, list[dict[str, Any]]]:
    return {
        "friends": [
            {"name": f.friend.public_name, "since": _time(f.since)}
            for f in Friendship.objects.filter(person=user).select_related("friend").order_by("since")
        ],
        "friend_requests_sent": [
            {"to": r.recipient.public_name, "time": _time(r.created_at)}
            for r in FriendRequest.objects.filter(sender=user).select_related("recipient")
        ],
        "friend_requests_received": [
            {"from": r.sender.public_name, "time": _time(r.created_at)}
            for r in FriendRequest.objects.filter(recipient=user).select_related("sender")
        ],
        "blocked": [
            {"name": b.blocked.public_name, "since": _time(b.created_at)}
            for b in Block.objects.filter(blocker=user).select_related("blocked").order_by("created_at")
        ],
        "notices": [
            {
                "kind": n.kind,
                "from": n.sender.public_name if n.sender else "",
                "table": n.table_id,
                "about": n.subject,
                "time": _time(n.created_at),
            }
            for n in Notice.objects.filter(recipient=user).select_related("sender").order_by("created_at")
        ],
    }


def _notifications(user: User) -> dict[str, Any]:
    """The person's notification settings, the browsers they subscribed to pushes (where the push
    service delivers, without the keys) and the pushes and emails sent or waiting to be."""
    preference = Preference.objects.filter(user=user).first()
    return {
        "notification_settings": {
            "ways": preference.ways,
            "quiet_from": preference.quiet_from.isoformat() if preference.quiet_from else None,
            "quiet_until": preference.quiet_until.isoformat() if preference.quiet_until else None,
            "time_zone": preference.time_zone,
            "language": preference.language,
        }
        if preference
        else None,
        "push_subscriptions": [
            {
                "push_service": s.endpoint,
                "subscribed": _time(s.created_at),
                "last_sent": _time(s.last_sent_at),
            }
            for s in PushSubscription.objects.filter(user=user).order_by("created_at")
        ],
        "notifications": [
            {
                "kind": d.kind,
                "way": d.way,
                "about": d.key,
                "details": d.params,
                "decided": _time(d.created_at),
                "not_before": _time(d.due_at),
                "sent": _time(d.sent_at),
                "attempts": d.attempts,
            }
            for d in Delivery.objects.filter(user=user).order_by("created_at", "pk")
        ],
    }


def _chat(user: User) -> dict[str, list[dict[str, Any]]]:
    """What the person said and did in the chat, and what moderators decided about them; the lines
    others said stay out (they are those people's data). Nothing when the chat is left out
    (``CHAT_ENABLED``)."""
    if not apps.is_installed("chat"):
        return {}
    from chat.models import ChatMessage, Ignore, ModerationAction, Report, Suspension

    return {
        "chat_messages": [
            {
                "table": m.table_id,
                "match": m.match_id,
                "room": m.room,
                "time": _time(m.created_at),
                "quick_phrase": m.phrase or None,
                "text": m.text or None,
                "shown_as": m.shown or None,
                "removed_by_a_moderator": _time(m.removed_at),
            }
            for m in ChatMessage.objects.filter(author=user).order_by("created_at", "pk")
        ],
        "chat_ignored": [
            i.ignored.public_name for i in Ignore.objects.filter(person=user).select_related("ignored")
        ],
        "chat_reports_made": [
            {"message": r.message_id, "reason": r.reason, "time": _time(r.created_at)}
            for r in Report.objects.filter(reporter=user).order_by("created_at")
        ],
        "chat_moderation": [
            {"action": a.kind, "reason": a.reason, "detail": a.detail or None, "time": _time(a.created_at)}
            for a in ModerationAction.objects.filter(subject=user).order_by("created_at")
        ],
        "chat_suspensions": [
            {
                "from": _time(s.created_at),
                "until": _time(s.until),
                "reason": s.reason,
                "lifted": _time(s.lifted_at),
            }
            for s in Suspension.objects.filter(user=user).order_by("created_at")
        ],
    }


def person_data(user: User) -> dict[str, Any]:
    """The whole of what is kept about ``user``, as one JSON-ready dict."""
    return {
        "format": FORMAT,
        "generated_at": _time(timezone.now()),
        "profile": _profile(user),
        **_bot_accounts(user),
        **_logins(user),
        "matches": list(_matches(user)),
        **_ratings(user),
        **_holidays(user),
        **_reviews(user),
        **_access_tokens(user),
        **_tournaments(user),
        **_social(user),
        **_notifications(user),
        **_chat(user),
    }


def archive(user: User) -> bytes:
    """The zip the person downloads: README.txt (in the active language) and data.json."""
    data = person_data(user)
    readme = render_to_string("privacy/export_readme.txt", {"person": user, "data": data})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr(README_FILE, readme)
        zipped.writestr(DATA_FILE, json.dumps(data, ensure_ascii=False, indent=1))
    return out.getvalue()
