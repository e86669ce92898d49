"""A notification email: the entries of one kind for one person (one, or a digest of several), as text
and HTML from templates, with the one-click unsubscribe link of RFC 8058 in the body and the headers."""

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from . import texts
from .models import Kind

UNSUBSCRIBE_SALT = "notifications.unsubscribe"
"""Keeps the unsubscribe links apart from every other signed value of the site."""


def unsubscribe_token(user_id: int, kind: str) -> str:
    """The signed token of the link that stops ``kind``'s emails to ``user_id``: no login, no expiry
    (an old message's link still works), and any change to it breaks the signature."""
    return signing.dumps([user_id, kind], salt=UNSUBSCRIBE_SALT)


def unsubscribe_reading(token: str) -> tuple[int, str] | None:
    """The person and kind a token names, or None when it was altered (or is not one)."""
    try:
        user_id, kind = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except (signing.BadSignature, TypeError, ValueError):
        return None
    if not isinstance(user_id, int) or kind not in Kind.values:
        return None
    return user_id, kind


def unsubscribe_url(user_id: int, kind: str) -> str:
    return settings.SITE_ORIGIN + reverse(
        "notifications:unsubscribe", args=[unsubscribe_token(user_id, kind)]
    )


def message(
    *, user_id: int, address: str, kind: str, entries: list[tuple[texts.Said, str]]
) -> EmailMultiAlternatives:
    """The email of ``entries`` (each what it says and its link on the site), in the active language."""
    unsubscribe = unsubscribe_url(user_id, kind)
    context = {
        "entries": [
            {"title": said.title, "body": said.body, "link": settings.SITE_ORIGIN + link}
            for said, link in entries
        ],
        "kind": Kind(kind).label,
        "unsubscribe": unsubscribe,
        "settings_link": settings.SITE_ORIGIN + reverse("notifications:settings"),
    }
    email = EmailMultiAlternatives(
        texts.subject(kind, [said for said, _link in entries]),
        render_to_string("notifications/email/notice.txt", context),
        settings.DEFAULT_FROM_EMAIL,
        [address],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    email.attach_alternative(render_to_string("notifications/email/notice.html", context), "text/html")
    return email
